import { AgentCatalog, type AgentDefinition, AgentRunner } from "@dsh/agent"
import type { Events } from "@dsh/core"
import { AgentContext } from "@dsh/harness"
import { type LanguageModel, ModelRegistry } from "@dsh/llm"
import { SessionStore } from "@dsh/session"
import { Limits, type SubagentTree } from "@dsh/subagent"
import { Permissions, Toolbox } from "@dsh/tools"
import { Context, Effect, Layer, Ref, Scope, Semaphore } from "effect"
import type { CreateSubagentsOptions } from "../Options.ts"
import { SubagentsError } from "../SubagentsError.ts"
import { kitAgents } from "./agents.ts"
import { kitBackends } from "./backends.ts"
import { resolveModel } from "./model.ts"

/** How deep children may delegate unless `limits.maxDepth` says otherwise (documented in `KitLimits`). */
const KIT_MAX_DEPTH = 1

/** What the lead may use besides its own tools: delegation and the control tools. */
const DELEGATION_TOOLS = ["subagent", "swarm", "send_message", "list_agents", "wait"]

const DEFAULT_LEAD = "You are the lead agent. Hand focused tasks to the subagents that fit them with the `subagent` tool, " +
  "then answer the user from their results."

const definition = (name: string, description: string, systemPrompt: string, extra: Partial<AgentDefinition.AgentDefinition> = {}): AgentDefinition.AgentDefinition => ({
  name,
  description,
  systemPrompt,
  override: false,
  scope: "runtime",
  source: "kit",
  ...extra
})

/** One session's tree and its lead's context, open for as long as the kit. */
export interface SessionRuntime {
  readonly id: string
  readonly session: SessionStore.SessionHandle
  readonly tree: SubagentTree.SubagentTree
  readonly context: Effect.Success<ReturnType<typeof AgentContext.make>>
}

export interface KitCoreShape {
  readonly model: LanguageModel.LanguageModelShape
  /** The agent types children may run as: the kit's agents, then the backends' own (`fork`, `acp:*`). */
  readonly agentTypes: ReadonlyArray<{ readonly name: string; readonly description: string }>
  readonly cwd: string
  /** The kit's own session (created on first use), or a stored one by id (opened on first use). */
  readonly runtime: (sessionId?: string | undefined) => Effect.Effect<SessionRuntime, SubagentsError>
  /** Stops every child of every session this kit opened (none is opened for it). */
  readonly stopAll: Effect.Effect<void>
  /** Runs `effect` under the kit's permission rules, when it was given any. */
  readonly governed: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** The lead's turns on `text`, in the wake loop of background delegation. */
  readonly prompt: (rt: SessionRuntime, text: string) => Effect.Effect<Effect.Success<ReturnType<typeof AgentRunner.runPrompt>>, SubagentsError>
}

/** The kit's Effect side: everything a `createSubagents` call owns, in the runtime's scope. */
export class KitCore extends Context.Service<KitCore, KitCoreShape>()("@dsh/kit/KitCore") {}

const failed = (what: string) => (e: { readonly message: string }) => new SubagentsError("Failed", `${what}: ${e.message}`, { cause: e })

export const makeKitCore = (
  options: CreateSubagentsOptions,
  onChildEvent: (handle: string, event: Events.AgentEvent) => void
): Effect.Effect<KitCoreShape, SubagentsError, SessionStore.SessionStore | ModelRegistry.ModelRegistry | Scope.Scope> =>
  Effect.gen(function*() {
    const store = yield* SessionStore.SessionStore
    const registry = yield* ModelRegistry.ModelRegistry
    const cwd = options.cwd ?? process.cwd()
    const given = yield* resolveModel(options.model)
    // Specs read their keys and base URLs (OPENAI_API_KEY, OPENAI_BASE_URL, …) from the process environment, as dsh run does.
    const modelConfig = { env: process.env, cwd }
    const model = given._tag === "Model" ? given.model : yield* registry.resolve(given.spec, modelConfig).pipe(Effect.mapError(failed(`model "${given.spec}"`)))
    const modelSpec = given._tag === "Spec" ? given.spec : `${model.provider}:${model.model}`

    const delegates = yield* kitAgents(options.agents, cwd)
    const backends = yield* kitBackends(options)
    const main = options.main
    const lead = definition("main", "the lead", main?.instructions ?? DEFAULT_LEAD, main?.tools === undefined ? {} : { tools: [...main.tools, ...DELEGATION_TOOLS] })
    const catalog = AgentCatalog.staticCatalog({ main: lead, delegates })

    const permissions: Permissions.PermissionsShape | undefined = options.permissions === undefined
      ? undefined
      : yield* Permissions.make(options.permissions).pipe(Effect.mapError((e) => new SubagentsError("InvalidOptions", e.message)))
    const governed = <A, E, R>(effect: Effect.Effect<A, E, R>) => permissions === undefined ? effect : Effect.provideService(effect, Permissions.Permissions, permissions)

    const scope = yield* Effect.scope
    // The kit's own default depth is 1 (only the lead delegates), not @dsh/subagent's 2: a child
    // at the limit gets no delegation tools, so its requests do not carry their schemas (7 KB).
    const limits = Limits.normalizeLimits({ ...options.limits, maxDepth: options.limits?.maxDepth ?? KIT_MAX_DEPTH })
    const open = (session: SessionStore.SessionHandle) =>
      Effect.gen(function*() {
        // One process runs a session: another live owner makes this fail.
        yield* session.acquire
        const context = yield* AgentContext.make({
          catalog,
          backends,
          tools: options.tools,
          model,
          session,
          cwd,
          limits,
          resolveModel: (spec) => registry.resolve(spec, modelConfig),
          onChildEvent: (handle, event) => Effect.sync(() => onChildEvent(handle, event)),
          createTools: false
        })
        return { id: session.id, session, tree: context.tree, context } satisfies SessionRuntime
      }).pipe(Effect.mapError(failed("session")), Effect.provideService(Scope.Scope, scope))

    // Runtimes by session id, built once each; the kit's own is the first one made without an id.
    const runtimes = new Map<string, SessionRuntime>()
    const own = yield* Ref.make<string | undefined>(undefined)
    const lock = yield* Semaphore.make(1)
    const runtime = (sessionId?: string) =>
      lock.withPermit(Effect.gen(function*() {
        const id = sessionId ?? (yield* Ref.get(own))
        if (id !== undefined) {
          const known = runtimes.get(id)
          if (known !== undefined) return known
          const session = yield* store.open(id).pipe(
            Effect.mapError((e) => new SubagentsError(e.reason === "NotFound" ? "NotFound" : "Failed", e.message, { cause: e }))
          )
          const rt = yield* open(session)
          runtimes.set(id, rt)
          return rt
        }
        const session = yield* store.create({ agent: "main", cwd, model: modelSpec }).pipe(Effect.mapError(failed("session")))
        const rt = yield* open(session)
        yield* Ref.set(own, rt.id)
        runtimes.set(rt.id, rt)
        return rt
      }))

    const prompt = (rt: SessionRuntime, text: string) =>
      Effect.gen(function*() {
        const toolbox = Toolbox.make({ tools: rt.context.tools, policy: { tools: catalog.main.tools } })
        yield* rt.session.updateState((s) => ({ ...s, status: "running" }))
        const before = new Set(rt.tree.descriptors.all().map((d) => d.handle))
        // The lead's children this prompt started (their descendants go with them).
        const startedHere = Effect.suspend(() =>
          Effect.forEach(rt.tree.descriptors.all().filter((d) => d.parent === "main" && !before.has(d.handle)), (d) => rt.tree.stopHeld(d.handle, "user"), { discard: true })
        )
        const result = yield* rt.tree.runTurns("main", text, (turnText, beforeStep) =>
          AgentRunner.runPrompt({
            agent: "main",
            cwd,
            model,
            systemPrompt: catalog.systemPrompt,
            toolbox: Effect.succeed(toolbox),
            transcript: rt.session.transcript,
            prompt: turnText,
            // The lead's events go to the kit's listeners too, as handle `main`.
            onEvent: (event) => Effect.sync(() => onChildEvent("main", event)),
            beforeStep
          })
        ).pipe(
          governed,
          // An aborted prompt stops the children it started, background ones too.
          Effect.onInterrupt(() => startedHere)
        )
        yield* rt.session.updateState((s) => ({ ...s, status: AgentRunner.statusOfResult(result) }))
        return result
      }).pipe(Effect.mapError(failed("prompt")))

    const agentTypes = [
      ...delegates.map((d) => ({ name: d.name, description: d.description })),
      ...backends.flatMap((b) => ("provider" in b ? b.types.map((t) => ({ name: t.name, description: t.description })) : []))
    ]

    const stopAll = Effect.suspend(() => Effect.forEach([...runtimes.values()], (rt) => rt.tree.stopHeld("all", "user"), { discard: true }))

    return { model, agentTypes, cwd, runtime, stopAll, governed, prompt } satisfies KitCoreShape
  })

/** The kit's core as a layer over a store and a model registry. */
export const kitCoreLayer = (options: CreateSubagentsOptions, onChildEvent: (handle: string, event: Events.AgentEvent) => void) =>
  Layer.effect(KitCore, makeKitCore(options, onChildEvent))
