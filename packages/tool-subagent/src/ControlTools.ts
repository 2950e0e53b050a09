import { type Records, Subagents, Vocabulary } from "@dsh/subagent"
import { Tool } from "@dsh/tools"
import { Effect } from "effect"
import * as z from "zod"
import { makeHistoryTool } from "./HistoryTool.ts"

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`

const describeResult = (r: Records.SubagentResult) =>
  `${r.output.trim() === "" ? "(no text)" : r.output}\n\n[subagent ${r.handle} (${r.agent}) · ${r.status} · ${r.usage.totalTokens} tokens · ${seconds(r.durationMs)}]` +
  (r.notes === undefined ? "" : `\nNotes: ${r.notes}`)

const describeDescriptor = (d: Records.SubagentDescriptor) =>
  `${d.handle} (${d.agent}) is ${d.status}; last activity ${d.updatedAt}; ${d.usage.totalTokens} tokens` +
  (d.lastResult === undefined ? "" : `\nLast result: ${d.lastResult}`)

// Parameter schemas are built once: tools are made for every agent context.
const SendMessageParams = z.object({
  to: z.string().min(1).describe("The subagent's handle, as shown in its results or by list_agents"),
  message: z.string().min(1).describe("What to tell it"),
  background: z.boolean().optional().describe("Return at once; the reply is announced to you when it is ready")
})
const ListAgentsParams = z.object({})
const AgentsListParams = z.object({})
const WaitParams = z.object({
  handles: z.array(z.string()).optional().describe("Only these subagents (default: all your background subagents)"),
  timeoutSeconds: z.number().positive().max(3600).default(300).describe("How long to wait at most")
})

/**
 * `send_message {to, message}`: continue or steer one of your descendants by its handle.
 * A running child gets the message at its next step; an idle one (finished, failed, lost)
 * is continued with its earlier context and its reply is returned.
 */
const makeSendMessageTool = (subagents: Subagents.SubagentsShape, caller: Vocabulary.ParentInfo) =>
  Tool.defineTool({
    name: "send_message",
    description: "Send a message to one of your subagents by its handle (e.g. explore-1), to continue or steer it. " +
      "A running subagent receives it before its next step; an idle one continues with its earlier context intact " +
      "and its reply is returned (or announced later with background: true).",
    parameters: SendMessageParams,
    summarize: (p) => `→ ${p.to}: ${p.message.slice(0, 80)}`,
    execute: (p, context) =>
      subagents.send(p.to, p.message, Vocabulary.callerOf(caller, context), { background: p.background === true, detachable: true }).pipe(
        Effect.map((outcome) => {
          switch (outcome._tag) {
            case "Queued":
              return `${p.to} is running: the message is queued for its next step.`
            case "Accepted":
              return JSON.stringify(outcome.run)
            case "Replied":
              return { content: describeResult(outcome.result), isError: outcome.result.status !== "completed" }
          }
        }),
        Effect.mapError((e) => new Tool.ToolError({ message: e.message }))
      )
  })

/** `list_agents`: your descendants with type, status, last activity and usage. */
const makeListAgentsTool = (subagents: Subagents.SubagentsShape, caller: Vocabulary.ParentInfo) =>
  Tool.defineTool({
    name: "list_agents",
    description: "List your subagents (and theirs): handle, type, status, last activity and token usage.",
    parameters: ListAgentsParams,
    execute: () =>
      Effect.sync(() => {
        const mine = subagents.list(caller.handle)
        return mine.length === 0 ? "You have no subagents." : mine.map(describeDescriptor).join("\n\n")
      })
  })

/** One agent type as `agents_list` shows it, and whether (and why not) the caller may use it. */
export interface AgentTypeListing {
  readonly name: string
  readonly description: string
  readonly allowed: boolean
  readonly reason?: string | undefined
}

/**
 * Every agent type of the caller's context (fixed and created at runtime), each with whether
 * the caller may delegate to it: its `subagents` list must allow it, and a backend must run it.
 */
export const listAgentTypes = (subagents: Subagents.SubagentsShape, caller: Vocabulary.ParentInfo): Effect.Effect<ReadonlyArray<AgentTypeListing>> =>
  Effect.gen(function*() {
    const available = new Set((yield* subagents.availableTypes(caller)).map((t) => t.name))
    const backed = new Set(yield* subagents.providers.names)
    const fixed = new Map((yield* subagents.types.entries).map(([name, t]) => [name, t] as const))
    return (yield* subagents.typeNames).map((name): AgentTypeListing => {
      const type = fixed.get(name)
      const description = type?.description ?? subagents.tree.dynamicTypes.get(name)?.description ?? ""
      if (available.has(name)) return { name, description, allowed: true }
      const reason = type !== undefined && !backed.has(type.provider)
        ? `no backend "${type.provider}" runs it here`
        : `not in ${caller.handle}'s subagents list`
      return { name, description, allowed: false, reason }
    })
  })

/**
 * `agents_list` (OpenClaw's tool of that name): the agent types the caller can spawn with the
 * `subagent` tool, with what each is for — and the ones it may not use, with why. Unlike
 * `list_agents`, which lists child instances, this lists types.
 */
const makeAgentsListTool = (subagents: Subagents.SubagentsShape, caller: Vocabulary.ParentInfo) =>
  Tool.defineTool({
    name: "agents_list",
    description: "List the agent types you can delegate to with the subagent tool, with what each is for, and the " +
      "types you may not use. (list_agents lists the subagents you already started.)",
    parameters: AgentsListParams,
    execute: () =>
      Effect.map(listAgentTypes(subagents, caller), (types) => {
        const allowed = types.filter((t) => t.allowed)
        const denied = types.filter((t) => !t.allowed)
        const line = (t: AgentTypeListing) => `- ${t.name}: ${t.description}${t.reason === undefined ? "" : ` (${t.reason})`}`
        const head = allowed.length === 0 ? "You may not delegate to any agent type." : `You may delegate to:\n${allowed.map(line).join("\n")}`
        return denied.length === 0 ? head : `${head}\n\nNot allowed for you:\n${denied.map(line).join("\n")}`
      })
  })

/** `wait`: blocks until background subagents finish (or the timeout), so a model never polls. */
const makeWaitTool = (subagents: Subagents.SubagentsShape, caller: Vocabulary.ParentInfo) =>
  Tool.defineTool({
    name: "wait",
    description: "Wait until your background subagents finish (all of them, or the given handles), up to a timeout, " +
      "and get their results. Use this instead of polling.",
    parameters: WaitParams,
    execute: (p) =>
      subagents.wait(caller.handle, p.handles, `${p.timeoutSeconds} seconds`).pipe(
        Effect.map((outcomes) =>
          outcomes.length === 0
            ? "You have no background subagents."
            : outcomes.map((o) =>
              "output" in o ? describeResult(o) : `${describeDescriptor(o)}${o.status === "running" || o.status === "queued" ? " (still not finished)" : ""}`
            ).join("\n\n---\n\n")
        ),
        Effect.mapError((e) => new Tool.ToolError({ message: e.message }))
      )
  })

/** The names of the tools `makeControlTools` makes. */
export const CONTROL_TOOL_NAMES: ReadonlyArray<string> = ["send_message", "list_agents", "agents_list", "wait", "sessions_history"]

/** `send_message`, `list_agents`, `agents_list`, `wait` and `sessions_history` for `caller`, over the `Subagents` of its context. */
export const make = (caller: Vocabulary.ParentInfo) =>
  Effect.gen(function*() {
    const subagents = yield* Subagents.Subagents
    return [makeSendMessageTool(subagents, caller), makeListAgentsTool(subagents, caller), makeAgentsListTool(subagents, caller), makeWaitTool(subagents, caller), makeHistoryTool(subagents, caller)]
  })
