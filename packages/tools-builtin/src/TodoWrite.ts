import type { Events } from "@dsh/core"
import { Tool } from "@dsh/tools"
import { Effect } from "effect"
import * as z from "zod"

const item = z.object({
  content: z.string().min(1).describe("What is to be done, in the imperative (\"Run the tests\")."),
  status: z.enum(["pending", "in_progress", "completed"]).describe("Its state; keep exactly one item in_progress while working."),
  activeForm: z.string().min(1).optional().describe("The present-continuous form shown while it is in progress (\"Running the tests\").")
})

const parameters = z.object({
  todos: z.array(item).max(100).describe("The whole updated list: every call replaces the previous one.")
})

const MARK: Record<Events.TodoItem["status"], string> = { pending: "[ ]", in_progress: "[~]", completed: "[x]" }

/** The list as the model gets it back (and a reader of the transcript sees it). */
export const formatTodos = (todos: ReadonlyArray<Events.TodoItem>): string =>
  todos.length === 0 ? "The todo list is empty." : todos.map((t) => `${MARK[t.status]} ${t.content}`).join("\n")

/**
 * TodoWrite (as Claude Code's): the agent keeps its plan as a list, sending the whole list each
 * time. The list is a `todo` event of the calling agent, so it is in the transcript and a live
 * tree shows the item in progress next to the agent; nothing else holds it.
 */
export const TodoWriteTool = Tool.defineTool({
  name: "TodoWrite",
  description: [
    "Keep a todo list for the current task: send the whole updated list each call (it replaces the previous one).",
    "Use it for work of three or more steps; mark an item in_progress before starting it (one at a time) and",
    "completed as soon as it is done. The user sees the item in progress."
  ].join(" "),
  parameters,
  needsApproval: false,
  summarize: (params) => `${params.todos.filter((t) => t.status === "completed").length}/${params.todos.length} done`,
  execute: (params, context) =>
    Effect.gen(function*() {
      const todos: ReadonlyArray<Events.TodoItem> = params.todos.map((t) => ({
        content: t.content,
        status: t.status,
        ...(t.activeForm === undefined ? {} : { activeForm: t.activeForm })
      }))
      if (context.turn !== undefined) yield* context.turn.emit({ type: "todo", todos })
      const active = todos.filter((t) => t.status === "in_progress").length
      const note = active > 1 ? `\n(${active} items are in_progress; keep one at a time.)` : ""
      return `Todo list updated.\n${formatTodos(todos)}${note}`
    })
})
