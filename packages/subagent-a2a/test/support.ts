import { type AgentCard, Role, type Task, TaskState } from "@a2a-js/sdk"
import { type AgentExecutor, DefaultRequestHandler, InMemoryTaskStore } from "@a2a-js/sdk/server"
import { agentCardHandler, jsonRpcHandler, UserBuilder } from "@a2a-js/sdk/server/express"
import { FileSessionStore } from "@dsh/session"
import { makeSubagents, makeSubagentTree, type ParentInfo, type SubagentsShape } from "@dsh/subagent"
import { testParent } from "@dsh/subagent/testing"
import { Effect, type Scope, Stream } from "effect"
import express from "express"
import { mkdtempSync } from "node:fs"
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type A2aAgentConfig, type A2aBackend, makeA2aBackend, type A2aProviderOptions } from "../src/index.ts"

export const tempDir = (prefix = "dsh-a2a-test-"): string => mkdtempSync(join(tmpdir(), prefix))

const text = (value: string) => ({ content: { $case: "text" as const, value }, metadata: undefined, filename: "", mediaType: "text/plain" })

/**
 * A tiny echo agent on the SDK's own executor contract: `echo X` answers X as an artifact
 * (streamed in two chunks); `ask` ends input-required; `fail` fails; `hang` never ends (until cancelled).
 */
const hanging = new Map<string, () => void>()
/** The tasks cancel-task was received for. */
export const cancelled: Array<string> = []

export const echoExecutor: AgentExecutor = {
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

/** Serves an executor with the SDK's own server classes on 127.0.0.1 (port 0); closed with the scope. */
export const serveSdkAgent = (options: { readonly streaming: boolean; readonly executor?: AgentExecutor }): Effect.Effect<{ readonly url: string }, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const app = express()
      const server: Server = await new Promise((ok) => {
        const s = app.listen(0, "127.0.0.1", () => ok(s))
      })
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      const card: AgentCard = {
        name: "Echo",
        description: "repeats what it is told",
        supportedInterfaces: [{ url: `${url}/a2a`, protocolBinding: "JSONRPC", protocolVersion: "1.0", tenant: "" }],
        provider: undefined,
        version: "1.0.0",
        capabilities: { streaming: options.streaming, pushNotifications: false, extensions: [] },
        securitySchemes: {},
        securityRequirements: [],
        defaultInputModes: ["text/plain"],
        defaultOutputModes: ["text/plain"],
        skills: [{ id: "echo", name: "echo", description: "says it back", tags: [], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
        signatures: []
      }
      const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), options.executor ?? echoExecutor)
      app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: handler }))
      app.use("/a2a", jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }))
      return { url, server }
    }),
    ({ server }) => Effect.promise(() => new Promise<void>((ok) => {
      server.closeAllConnections()
      server.close(() => ok())
    }))
  ).pipe(Effect.map(({ url }) => ({ url })))

export const namedModel = (provider: string, model: string): ParentInfo["model"] => ({
  provider,
  model,
  stream: () => Stream.empty,
  generate: () => Effect.die("the parent model is not called in these tests")
})

export interface TestEnv {
  readonly subagents: SubagentsShape
  readonly parent: ParentInfo
  readonly backend: A2aBackend
}

/** A parent on the real file store with the `a2a` backend for the given agents. */
export const makeEnv = (agents: ReadonlyArray<A2aAgentConfig>, provider: Partial<A2aProviderOptions> = {}): Effect.Effect<TestEnv, unknown, Scope.Scope> =>
  Effect.gen(function*() {
    const home = tempDir("dsh-a2a-home-")
    const cwd = tempDir("dsh-a2a-cwd-")
    const store = yield* FileSessionStore.make({ home })
    const session = yield* store.create({ agent: "main", cwd, model: "scripted" })
    const tree = yield* makeSubagentTree({ session, childContext: () => Effect.succeed({ tools: [], systemPrompt: "" }) })
    const backend = yield* makeA2aBackend({ agents, pollIntervalMs: 50, ...provider })
    const subagents = yield* makeSubagents({ tree, providers: [backend.provider], types: backend.types })
    return { subagents, backend, parent: testParent(namedModel("scripted", "demo"), { cwd }) }
  })
