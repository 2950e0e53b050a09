import type { AgentCard } from "@a2a-js/sdk"
import { type AgentExecutor, DefaultRequestHandler, InMemoryTaskStore } from "@a2a-js/sdk/server"
import { makeEchoExecutor } from "../src/testing.ts"
import { agentCardHandler, jsonRpcHandler, UserBuilder } from "@a2a-js/sdk/server/express"
import { FileSessionStore } from "@dsh/session"
import { type Limits, Subagents, SubagentTree, type Vocabulary } from "@dsh/subagent"
import { Fixtures } from "@dsh/subagent/testing"
import { Effect, type Scope, Stream } from "effect"
import express from "express"
import { mkdtempSync } from "node:fs"
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type A2aAgentConfig, A2aProvider } from "../src/index.ts"

export const tempDir = (prefix = "dsh-a2a-test-"): string => mkdtempSync(join(tmpdir(), prefix))

/** Serves an executor with the SDK's own server classes on 127.0.0.1 (port 0); closed with the scope. */
export const serveSdkAgent = (options: { readonly streaming: boolean; readonly executor?: AgentExecutor }): Effect.Effect<{ readonly url: string; readonly cancelled: ReadonlyArray<string> }, never, Scope.Scope> => {
  const echo = makeEchoExecutor()
  return Effect.acquireRelease(
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
      const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), options.executor ?? echo.executor)
      app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: handler }))
      app.use("/a2a", jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }))
      return { url, server }
    }),
    ({ server }) => Effect.promise(() => new Promise<void>((ok) => {
      server.closeAllConnections()
      server.close(() => ok())
    }))
  ).pipe(Effect.map(({ url }) => ({ url, cancelled: echo.cancelled })))
}

export const namedModel = (provider: string, model: string): Vocabulary.ParentInfo["model"] => ({
  provider,
  model,
  stream: () => Stream.empty,
  generate: () => Effect.die("the parent model is not called in these tests")
})

export interface TestEnv {
  readonly subagents: Subagents.SubagentsShape
  readonly parent: Vocabulary.ParentInfo
  readonly backend: A2aProvider.A2aBackend
}

/** A parent on the real file store with the `a2a` backend for the given agents. */
export const makeEnv = (agents: ReadonlyArray<A2aAgentConfig.A2aAgentConfig>, provider: Partial<A2aProvider.A2aProviderOptions> = {}, limits?: Limits.SubagentLimitsInput): Effect.Effect<TestEnv, unknown, Scope.Scope> =>
  Effect.gen(function*() {
    const home = tempDir("dsh-a2a-home-")
    const cwd = tempDir("dsh-a2a-cwd-")
    const store = yield* FileSessionStore.make({ home })
    const session = yield* store.create({ agent: "main", cwd, model: "scripted" })
    const tree = yield* SubagentTree.make({ session, limits, childContext: () => Effect.succeed({ tools: [], systemPrompt: "" }) })
    const backend = yield* A2aProvider.makeA2aBackend({ agents, pollIntervalMs: 50, ...provider })
    const subagents = yield* Subagents.make({ tree, providers: [backend.provider], types: backend.types })
    return { subagents, backend, parent: Fixtures.testParent(namedModel("scripted", "demo"), { cwd }) }
  })
