/**
 * @dsh/subagent-a2a/serve: a dsh `AgentHost` (the main agent with its subagents) served as an
 * A2A agent over HTTP: card, JSON-RPC send, streaming send (SSE), get task, cancel task.
 */
import type { AgentCard } from "@a2a-js/sdk"
import { duplicateInterfacesForLegacy } from "@a2a-js/sdk/compat/v0_3"
import { DefaultRequestHandler, InMemoryTaskStore } from "@a2a-js/sdk/server"
import { AgentHost } from "@dsh/agent"
import { Effect, FiberSet, type Scope } from "effect"
import { makeHostExecutor } from "./serve/HostExecutor.ts"
import { listenA2a } from "./serve/HttpEndpoint.ts"
import { permissionQuestionsExtension } from "./serve/PermissionQuestions.ts"

export { PERMISSION_QUESTIONS_EXTENSION } from "./serve/PermissionQuestions.ts"
export { cardSkills, serveToken } from "./serve/ServeSettings.ts"

export interface ServeA2aOptions {
  readonly host: string
  /** 0 binds a free port. */
  readonly port: number
  /** With it, a request without `Authorization: Bearer <token>` is answered 401 (the card stays public). */
  readonly token?: string | undefined
  /** Where each A2A `contextId`'s dsh session id is recorded (e.g. `$DSH_HOME/a2a/contexts`). */
  readonly contextsDir: string
  /** The sessions a new `contextId` gets. */
  readonly create: { readonly cwd: string; readonly agent?: string | undefined; readonly model?: string | undefined }
  readonly name?: string | undefined
  readonly description?: string | undefined
  readonly version?: string | undefined
  /** The agent types the main agent can delegate to: listed as the card's skills. */
  readonly skills?: ReadonlyArray<{ readonly name: string; readonly description: string }> | undefined
}

/** The card of a dsh served at `url`: JSON-RPC (v1.0 and v0.3), streaming, one skill per agent type. */
export const dshAgentCard = (url: string, options: ServeA2aOptions): AgentCard => ({
  name: options.name ?? "dsh",
  description: options.description ?? "a dsh agent with subagents: give it a complete, self-contained task",
  // The same endpoint speaks v0.3 too (through the SDK's compat handler), so the card says so.
  supportedInterfaces: duplicateInterfacesForLegacy([{ url, protocolBinding: "JSONRPC", protocolVersion: "1.0", tenant: "" }], ["JSONRPC"]),
  provider: undefined,
  version: options.version ?? "0.0.0",
  capabilities: { streaming: true, pushNotifications: false, extensions: [permissionQuestionsExtension] },
  securitySchemes: options.token === undefined ? {} : { bearer: { scheme: { $case: "httpAuthSecurityScheme", value: { description: "", scheme: "Bearer", bearerFormat: "" } } } },
  securityRequirements: options.token === undefined ? [] : [{ schemes: { bearer: { list: [] } } }],
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: (options.skills ?? []).map((s) => ({ id: s.name, name: s.name, description: s.description, tags: [], examples: [], inputModes: [], outputModes: [], securityRequirements: [] })),
  signatures: []
})

/**
 * Serves the `AgentHost` until the scope closes; returns the bound URL at once (a port of 0
 * is the free port the system chose). Turns in flight end with the scope.
 */
export const serveA2a = (options: ServeA2aOptions): Effect.Effect<{ readonly url: string }, AgentHost.HostError, AgentHost.AgentHost | Scope.Scope> =>
  Effect.gen(function*() {
    const host = yield* AgentHost.AgentHost
    const run = yield* FiberSet.makeRuntimePromise<never>()
    const executor = makeHostExecutor({ host, contextsDir: options.contextsDir, create: options.create, run })
    const endpoint = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () =>
          listenA2a({
            host: options.host,
            port: options.port,
            token: options.token,
            handler: (url) => {
              const card = dshAgentCard(url, options)
              return { card, requests: new DefaultRequestHandler(card, new InMemoryTaskStore(), executor) }
            }
          }),
        catch: (e) => new AgentHost.HostError({ reason: "Failed", message: `cannot listen on ${options.host}:${options.port}: ${e instanceof Error ? e.message : String(e)}` })
      }),
      (e) => Effect.promise(e.close)
    )
    return { url: endpoint.url }
  })
