// Google ADK (@google/adk) on real HTTP on 127.0.0.1, with a scripted model: ADK's own `toA2a`
// serving an `LlmAgent`, and the model replaced by a `BaseLlm` subclass (nothing calls Gemini).
import { BaseLlm, type BaseLlmConnection, type LlmAgent, type LlmRequest, type LlmResponse, LogLevel, setLogLevel } from "@google/adk"
import { bearerTokenUserBuilder, toA2a } from "@google/adk/a2a"
import { AgentCatalog } from "@dsh/agent"
import { Harness } from "@dsh/harness"
import { ModelRegistry } from "@dsh/llm"
import { type Script, ScriptedAdapter } from "@dsh/llm-scripted"
import { FileSessionStore } from "@dsh/session"
import { LocalProcessLauncher } from "@dsh/subprocess"
import { Effect, Layer, type Scope } from "effect"
import express from "express"
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"

// ADK logs every request at info level (and warns that the test server is unauthenticated).
setLogLevel(LogLevel.ERROR)

/** The text of a request's contents with the given role, in order. */
export const textsOf = (request: LlmRequest, role: string): ReadonlyArray<string> =>
  request.contents.filter((c) => c.role === role).map((c) => (c.parts ?? []).map((p) => p.text ?? "").join(""))

/** A model answering each request with `reply(request)`: a text, or a function call. */
export class ScriptedLlm extends BaseLlm {
  readonly requests: Array<LlmRequest> = []
  private readonly reply: (request: LlmRequest, n: number) => LlmResponse
  constructor(reply: (request: LlmRequest, n: number) => LlmResponse) {
    super({ model: "scripted" })
    this.reply = reply
  }
  async *generateContentAsync(request: LlmRequest): AsyncGenerator<LlmResponse, void> {
    this.requests.push(request)
    yield this.reply(request, this.requests.length - 1)
  }
  connect(): Promise<BaseLlmConnection> {
    return Promise.reject(new Error("the scripted model has no live mode"))
  }
}

/** A model that answers nothing until released (then with a text). */
export class HangingLlm extends BaseLlm {
  private readonly released = Promise.withResolvers<void>()
  constructor() {
    super({ model: "hanging" })
  }
  release(): void {
    this.released.resolve()
  }
  async *generateContentAsync(): AsyncGenerator<LlmResponse, void> {
    await this.released.promise
    yield text("finally")
  }
  connect(): Promise<BaseLlmConnection> {
    return Promise.reject(new Error("the hanging model has no live mode"))
  }
}

export const text = (value: string): LlmResponse => ({ content: { role: "model", parts: [{ text: value }] }, turnComplete: true })

/** Serves an ADK agent with ADK's `toA2a` on 127.0.0.1 at a free port; closed with the scope. */
export const serveAdkAgent = (agent: LlmAgent, options: { readonly token?: string } = {}): Effect.Effect<{ readonly url: string }, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const app = express()
      const server: Server = await new Promise((ok) => {
        const s = app.listen(0, "127.0.0.1", () => ok(s))
      })
      const port = (server.address() as AddressInfo).port
      // toA2a writes the RPC URL into the card, so it is called once the port is bound.
      await toA2a(agent, { app, host: "127.0.0.1", port, ...(options.token === undefined ? { allowUnauthenticated: true } : { authentication: bearerTokenUserBuilder(options.token) }) })
      return { url: `http://127.0.0.1:${port}`, server }
    }),
    ({ server }) => Effect.promise(() => new Promise<void>((ok) => {
      server.closeAllConnections()
      server.close(() => ok())
    }))
  ).pipe(Effect.map(({ url }) => ({ url })))

/** A dsh host (scripted main agent `lead`, one type `helper` it may delegate to) on the real file store. */
export const dshHost = (home: string, script: Script.Script) =>
  Harness.layer({
    agents: () =>
      Effect.succeed(AgentCatalog.staticCatalog({
        main: { name: "lead", description: "leads", systemPrompt: "You lead.", override: false, scope: "runtime", source: "test" },
        delegates: [{ name: "helper", description: "helps with chores", systemPrompt: "You help.", override: false, scope: "runtime", source: "test" }]
      })),
    backends: [],
    model: "scripted:lead"
  }).pipe(Layer.provide(Layer.mergeAll(
    FileSessionStore.layer({ home }),
    ModelRegistry.layerWith([ScriptedAdapter.make({ scripts: { lead: script } })]),
    LocalProcessLauncher.layer()
  )))
