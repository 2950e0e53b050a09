/**
 * @dsh/subagent-a2a/testing: a tiny A2A echo agent on the SDK's own server classes
 * (`DefaultRequestHandler`, `InMemoryTaskStore`, the JSON-RPC transport handler) over real HTTP
 * on 127.0.0.1, for tests of harnesses that delegate to `a2a:<name>`.
 */
import { type AgentCard, Role, type Task, TaskState } from "@a2a-js/sdk"
import { type AgentExecutor, DefaultRequestHandler, InMemoryTaskStore } from "@a2a-js/sdk/server"
import { type A2aEndpoint, listenA2a } from "./serve/HttpEndpoint.ts"

const text = (value: string) => ({ content: { $case: "text" as const, value }, metadata: undefined, filename: "", mediaType: "text/plain" })

/**
 * A tiny echo agent on the SDK's own executor contract: `echo X` answers X as an artifact
 * (streamed in two chunks); `ask` ends input-required; `fail` fails; `hang` never ends (until cancelled).
 */
export const makeEchoExecutor = (): { readonly executor: AgentExecutor; readonly cancelled: ReadonlyArray<string> } => {
  const hanging = new Map<string, () => void>()
  /** The tasks cancel-task was received for. */
  const cancelled: Array<string> = []
  const executor: AgentExecutor = {
    execute: async (ctx, bus) => {
      const prompt = ctx.userMessage.parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("")
      const base = { id: ctx.taskId, contextId: ctx.contextId, artifacts: [], history: [ctx.userMessage], metadata: undefined }
      const status = (state: TaskState, say?: string) => ({
        taskId: ctx.taskId,
        contextId: ctx.contextId,
        status: {
          state,
          message: say === undefined ? undefined : { messageId: `${ctx.taskId}-${state}`, contextId: ctx.contextId, taskId: ctx.taskId, role: Role.ROLE_AGENT, parts: [text(say)], metadata: undefined, extensions: [], referenceTaskIds: [] },
          timestamp: new Date().toISOString()
        },
        metadata: state === TaskState.TASK_STATE_COMPLETED ? { usage: { inputTokens: 3, outputTokens: 5 } } : undefined
      })
      // A stream starts with the task (a new one, or the one that waited for input).
      bus.publish({ kind: "task", data: ctx.task ?? ({ ...base, status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: undefined } } satisfies Task) })
      bus.publish({ kind: "statusUpdate", data: status(TaskState.TASK_STATE_WORKING, `working on: ${prompt}`) })
      if (prompt.startsWith("hang")) {
        // Working until cancelled: a stream that never ends by itself.
        return new Promise<void>((ok) => hanging.set(ctx.taskId, ok))
      }
      if (prompt.startsWith("fail")) {
        bus.publish({ kind: "statusUpdate", data: status(TaskState.TASK_STATE_FAILED, "it broke") })
        return bus.finished()
      }
      if (prompt.startsWith("ask")) {
        bus.publish({ kind: "statusUpdate", data: status(TaskState.TASK_STATE_INPUT_REQUIRED, "which colour?") })
        return bus.finished()
      }
      const answer = prompt.replace(/^echo /, "")
      const half = Math.ceil(answer.length / 2)
      const chunk = (value: string, append: boolean) => ({
        taskId: ctx.taskId,
        contextId: ctx.contextId,
        artifact: { artifactId: "answer", name: "answer", description: "", parts: [text(value)], metadata: undefined, extensions: [] },
        append,
        lastChunk: append,
        metadata: undefined
      })
      bus.publish({ kind: "artifactUpdate", data: chunk(answer.slice(0, half), false) })
      bus.publish({ kind: "artifactUpdate", data: chunk(answer.slice(half), true) })
      bus.publish({ kind: "statusUpdate", data: status(TaskState.TASK_STATE_COMPLETED) })
      bus.finished()
    },
    cancelTask: async (taskId, bus) => {
      cancelled.push(taskId)
      hanging.get(taskId)?.()
      bus.publish({
        kind: "statusUpdate",
        data: { taskId, contextId: "", status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: undefined }, metadata: undefined }
      })
      bus.finished()
    }
  }
  return { executor, cancelled }
}

/**
 * An executor that answers `@dsh/subagent/testing`'s conformance prompts as the scripted
 * conformance model does (echo, hang, fail, crash, recall of the context's earlier messages,
 * slow, partial), for running `subagentProviderSuite` against `a2a:<name>` children.
 */
export const makeConformanceExecutor = (): AgentExecutor => {
  const hanging = new Map<string, () => void>()
  const said = new Map<string, Array<string>>()
  const usage = { usage: { inputTokens: 10, outputTokens: 3 } }
  return {
    execute: async (ctx, bus) => {
      const prompt = ctx.userMessage.parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("")
      const users = [...(said.get(ctx.contextId) ?? []), prompt]
      said.set(ctx.contextId, users)
      const message = (say: string) => ({ messageId: `${ctx.taskId}-${users.length}-${say.length}`, contextId: ctx.contextId, taskId: ctx.taskId, role: Role.ROLE_AGENT, parts: [text(say)], metadata: undefined, extensions: [], referenceTaskIds: [] })
      const status = (state: TaskState, say?: string, metadata?: Record<string, unknown>) =>
        bus.publish({ kind: "statusUpdate", data: { taskId: ctx.taskId, contextId: ctx.contextId, status: { state, message: say === undefined ? undefined : message(say), timestamp: undefined }, metadata } })
      const answer = (say: string) => {
        bus.publish({ kind: "artifactUpdate", data: { taskId: ctx.taskId, contextId: ctx.contextId, artifact: { artifactId: "answer", name: "answer", description: "", parts: [text(say)], metadata: undefined, extensions: [] }, append: false, lastChunk: true, metadata: undefined } })
        status(TaskState.TASK_STATE_COMPLETED, undefined, usage)
      }
      bus.publish({ kind: "task", data: ctx.task ?? { id: ctx.taskId, contextId: ctx.contextId, status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: undefined }, artifacts: [], history: [ctx.userMessage], metadata: undefined } })
      const wait = () => new Promise<void>((ok) => hanging.set(ctx.taskId, ok))
      const echo = /^CONFORMANCE echo (\S+)/.exec(prompt)
      if (echo !== null) answer(`echo ${echo[1]}`)
      else if (prompt.startsWith("CONFORMANCE hang")) return wait()
      else if (prompt.startsWith("CONFORMANCE partial")) {
        status(TaskState.TASK_STATE_WORKING, "partial progress", usage)
        return wait()
      } else if (prompt.startsWith("CONFORMANCE fail")) status(TaskState.TASK_STATE_FAILED, "scripted failure")
      else if (prompt.startsWith("CONFORMANCE crash")) status(TaskState.TASK_STATE_FAILED, "scripted crash: the answer could not be read")
      else if (prompt.startsWith("CONFORMANCE recall")) answer(`recall: ${users.join(" | ")}`)
      else if (prompt.startsWith("CONFORMANCE slow")) {
        await new Promise((ok) => setTimeout(ok, 1500))
        answer("slow done")
      } else answer(`unknown: ${prompt}`)
      bus.finished()
    },
    cancelTask: async (taskId, bus) => {
      hanging.get(taskId)?.()
      hanging.delete(taskId)
      bus.publish({ kind: "statusUpdate", data: { taskId, contextId: "", status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: undefined }, metadata: undefined } })
      bus.finished()
    }
  }
}

/** The card of the echo agent served at `url`. */
export const echoCard = (url: string, streaming: boolean): AgentCard => ({
  name: "Echo",
  description: "repeats what it is told",
  supportedInterfaces: [{ url, protocolBinding: "JSONRPC", protocolVersion: "1.0", tenant: "" }],
  provider: undefined,
  version: "1.0.0",
  capabilities: { streaming, pushNotifications: false, extensions: [] },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "echo", name: "echo", description: "says it back", tags: [], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
  signatures: []
})

/** Serves the echo agent on 127.0.0.1 at a free port; `close` when done. */
export const serveEchoAgent = async (
  options: { readonly streaming?: boolean | undefined; readonly token?: string | undefined; readonly executor?: AgentExecutor | undefined } = {}
): Promise<A2aEndpoint & { readonly cancelled: ReadonlyArray<string> }> => {
  const echo = makeEchoExecutor()
  const executor = options.executor ?? echo.executor
  const cancelled = echo.cancelled
  const endpoint = await listenA2a({
    host: "127.0.0.1",
    port: 0,
    token: options.token,
    handler: (url) => {
      const card = echoCard(url, options.streaming ?? true)
      return { card, requests: new DefaultRequestHandler(card, new InMemoryTaskStore(), executor) }
    }
  })
  return { ...endpoint, cancelled }
}
