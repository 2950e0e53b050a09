import { type Message, Role, type Task, TaskState } from "@a2a-js/sdk"
import type { AgentExecutor, ExecutionEventBus } from "@a2a-js/sdk/server"
import type { AgentHostShape, HostPromptResult } from "@dsh/agent"
import { Deferred, Effect } from "effect"
import { mkdir, readFile, rename, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { messageText } from "../internal/TaskView.ts"

const text = (value: string) => ({ content: { $case: "text" as const, value }, metadata: undefined, filename: "", mediaType: "text/plain" })

const agentMessage = (taskId: string, contextId: string, say: string): Message => ({
  messageId: `${taskId}-${Date.now()}`,
  contextId,
  taskId,
  role: Role.ROLE_AGENT,
  parts: [text(say)],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: []
})

/** Where each A2A `contextId`'s dsh session is recorded, so a restarted server continues it. */
const contextFile = (dir: string, contextId: string) => join(dir, `${encodeURIComponent(contextId)}.json`)

const sessionOf = async (dir: string, contextId: string): Promise<string | undefined> => {
  try {
    const saved = JSON.parse(await readFile(contextFile(dir, contextId), "utf8")) as { sessionId?: unknown }
    return typeof saved.sessionId === "string" ? saved.sessionId : undefined
  } catch {
    return undefined
  }
}

const recordSession = async (dir: string, contextId: string, sessionId: string) => {
  await mkdir(dir, { recursive: true, mode: 0o700 })
  const file = contextFile(dir, contextId)
  await writeFile(`${file}.tmp`, JSON.stringify({ contextId, sessionId }), { mode: 0o600 })
  await rename(`${file}.tmp`, file)
}

const stateOf = (result: HostPromptResult): TaskState =>
  result.status === "completed" ? TaskState.TASK_STATE_COMPLETED : result.status === "cancelled" ? TaskState.TASK_STATE_CANCELED : TaskState.TASK_STATE_FAILED

/**
 * dsh's main agent as an A2A executor: each `contextId` is one dsh session (created on its
 * first message, recorded under `contextsDir`), each message one turn of it with its
 * subagents. The turn's result is the task's artifact; its usage is the final status's
 * metadata. Cancel-task cancels the turn. Host errors are failed tasks.
 */
export const makeHostExecutor = (options: {
  readonly host: AgentHostShape
  readonly contextsDir: string
  readonly create: { readonly cwd: string; readonly agent?: string | undefined; readonly model?: string | undefined }
  /** Runs an Effect in the server's scope (with its services). */
  readonly run: <A, E>(effect: Effect.Effect<A, E>) => Promise<A>
}): AgentExecutor => {
  const cancels = new Map<string, Deferred.Deferred<void>>()
  const status = (bus: ExecutionEventBus, taskId: string, contextId: string, state: TaskState, say?: string, metadata?: Record<string, unknown>) =>
    bus.publish({
      kind: "statusUpdate",
      data: {
        taskId,
        contextId,
        status: { state, message: say === undefined || say === "" ? undefined : agentMessage(taskId, contextId, say), timestamp: new Date().toISOString() },
        metadata
      }
    })
  return {
    execute: async (ctx, bus) => {
      const { taskId, contextId } = ctx
      const first: Task = ctx.task ?? {
        id: taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
        artifacts: [],
        history: [ctx.userMessage],
        metadata: undefined
      }
      bus.publish({ kind: "task", data: first })
      status(bus, taskId, contextId, TaskState.TASK_STATE_WORKING)
      const cancel = Deferred.makeUnsafe<void>()
      cancels.set(taskId, cancel)
      try {
        const prompt = messageText(ctx.userMessage)
        const result = await options.run(Effect.gen(function*() {
          const known = yield* Effect.promise(() => sessionOf(options.contextsDir, contextId))
          const sessionId = known ?? (yield* options.host.createSession(options.create)).id
          if (known === undefined) yield* Effect.promise(() => recordSession(options.contextsDir, contextId, sessionId))
          return yield* options.host.prompt({ sessionId, prompt, cancel: Deferred.await(cancel) })
        }).pipe(Effect.result))
        if (result._tag === "Failure") return status(bus, taskId, contextId, TaskState.TASK_STATE_FAILED, result.failure.message)
        const r = result.success
        if (r.result !== "") {
          bus.publish({
            kind: "artifactUpdate",
            data: {
              taskId,
              contextId,
              artifact: { artifactId: `${taskId}-result`, name: "result", description: "", parts: [text(r.result)], metadata: undefined, extensions: [] },
              append: false,
              lastChunk: true,
              metadata: undefined
            }
          })
        }
        const usage = { inputTokens: r.usage.inputTokens, outputTokens: r.usage.outputTokens, totalTokens: r.usage.totalTokens }
        status(bus, taskId, contextId, stateOf(r), r.status === "completed" ? undefined : (r.error ?? r.status), { usage, dshSessionId: r.sessionId, dshStatus: r.status })
      } finally {
        cancels.delete(taskId)
        bus.finished()
      }
    },
    cancelTask: async (taskId, bus) => {
      const cancel = cancels.get(taskId)
      // A turn in flight ends `cancelled` (its own final status); one that is gone is confirmed at once.
      if (cancel !== undefined) return void Deferred.doneUnsafe(cancel, Effect.void)
      bus.publish({ kind: "statusUpdate", data: { taskId, contextId: "", status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date().toISOString() }, metadata: undefined } })
      bus.finished()
    }
  }
}
