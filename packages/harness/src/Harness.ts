import {
  type AgentCatalog,
  agentPolicyWarnings,
  AgentHost,
  type AgentHostShape,
  HostError,
  type HostSessionInfo,
  runPrompt,
  statusOfResult
} from "@dsh/agent"
import type { AgentEvent } from "@dsh/core"
import { ModelRegistry } from "@dsh/llm"
import { type SessionState, SessionStore } from "@dsh/session"
import { decodeDescriptors, Lane, logWarnings, makeMemoryLane, requestStop, SubagentLimits, type SubagentTree } from "@dsh/subagent"
import { makeToolbox } from "@dsh/tools"
import { Effect, Layer, Option, type Scope } from "effect"
import { stat } from "node:fs/promises"
import { childSummary } from "./ChildSummary.ts"
import { makeAgentContext } from "./AgentContext.ts"
import type { Built, HarnessOptions } from "./HarnessOptions.ts"
import { toHostError } from "./HostErrors.ts"

const info = (s: SessionState): HostSessionInfo => ({
  id: s.id,
  agent: s.agent,
  cwd: s.cwd,
  model: s.model,
  status: s.status,
  createdAt: s.createdAt,
  updatedAt: s.updatedAt
})

const built = <A, E, R>(value: Built<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.isEffect(value) ? value : Effect.succeed(value)

/** A missing working directory is the caller's input to fix, found before anything is written. */
const checkDirectory = (cwd: string) =>
  Effect.tryPromise({ try: () => stat(cwd), catch: () => new HostError({ reason: "InvalidInput", message: `${cwd}: no such directory` }) }).pipe(
    Effect.flatMap((s) => s.isDirectory() ? Effect.void : Effect.fail(new HostError({ reason: "InvalidInput", message: `${cwd} is not a directory` })))
  )

/**
 * Builds the `AgentHost` a harness description asks for: sessions in the `SessionStore`,
 * models from the `ModelRegistry`, children through the described backends, with the lane and
 * limits of the context (`Lane`, `SubagentLimits`). Every prompt runs the main agent in the
 * wake loop (background outcomes announced before its next model call, the turn finished only
 * when its background children settle); `stopChild` reaches the process that runs a child.
 */
export const makeHost = <E, R>(options: HarnessOptions<E, R>) =>
  Effect.gen(function*() {
    const store = yield* SessionStore
    const registry = yield* ModelRegistry
    const limits = yield* SubagentLimits
    // One lane for every session of this host, unless the context provides one.
    const lane = Option.getOrUndefined(yield* Effect.serviceOption(Lane)) ?? (yield* makeMemoryLane(limits.maxConcurrent))
    const backends = yield* built(options.backends)
    const tools = yield* built(options.tools ?? [])
    const modelConfig = options.modelConfig ?? {}
    const defaultModel = options.model ?? "scripted"
    const resolveModel = (spec: string) => registry.resolve(spec, modelConfig)

    const catalogOf = (state: SessionState) => options.agents({ cwd: state.cwd, agent: state.agent, extra: state })
    // The session trees this host is running now: a stop for one of them needs no round trip.
    const live = new Map<string, Set<SubagentTree>>()
    const register = (sessionId: string, tree: SubagentTree) =>
      Effect.acquireRelease(
        Effect.sync(() => live.set(sessionId, (live.get(sessionId) ?? new Set()).add(tree))),
        () => Effect.sync(() => live.get(sessionId)?.delete(tree))
      )

    /** A session's tree and its main agent's context, for as long as the calling scope. */
    const openRuntime = (sessionId: string, onChildEvent?: (handle: string, event: AgentEvent) => Effect.Effect<void>) =>
      Effect.gen(function*() {
        const session = yield* store.open(sessionId)
        const state = yield* session.readState
        const model = yield* resolveModel(state.model)
        const catalog: AgentCatalog = yield* catalogOf(state)
        const main = yield* makeAgentContext({
          delegatesRunOn: options.delegatesRunOn,
          controlTools: options.controlTools,
          createTools: options.createTools,
          pricing: options.pricing,
          catalog,
          backends,
          tools,
          model,
          session,
          cwd: state.cwd,
          limits,
          lane,
          resolveModel,
          onChildEvent
        })
        yield* register(session.id, main.tree)
        return { session, state, model, catalog, tree: main.tree, main }
      })

    const createSession: AgentHostShape["createSession"] = (create) =>
      toHostError(Effect.gen(function*() {
        yield* checkDirectory(create.cwd)
        const model = create.model ?? defaultModel
        yield* resolveModel(model)
        const catalog = yield* options.agents({ cwd: create.cwd, agent: create.agent, extra: create.extra ?? {} })
        const session = yield* store.create({ agent: catalog.main.name, cwd: create.cwd, model, extra: create.extra })
        return info(yield* session.readState)
      })).pipe(Effect.withSpan("AgentHost.createSession"))

    const prompt: AgentHostShape["prompt"] = (request) =>
      toHostError(Effect.scoped(Effect.gen(function*() {
        if (request.model !== undefined) {
          const model = request.model
          yield* resolveModel(model)
          yield* (yield* store.open(request.sessionId)).updateState((s) => ({ ...s, model }))
        }
        const rt = yield* openRuntime(request.sessionId, request.onChildEvent)
        const { session, catalog, main } = rt
        const onEvent = request.onEvent ?? (() => Effect.void)
        const toolbox = makeToolbox({ tools: main.tools, policy: { tools: catalog.main.tools, disallowedTools: catalog.main.disallowedTools } })
        // Patterns that can never match are said when the profile applies, not silently ignored.
        for (const message of agentPolicyWarnings(catalog.main, main.tools.map((t) => t.name), yield* main.subagents.typeNames)) {
          const notice: AgentEvent = { type: "notice", level: "warning", message }
          yield* session.transcript.append(notice).pipe(Effect.ignore({ log: "Warn" }))
          yield* onEvent(notice)
        }
        yield* session.updateState((s) => ({ ...s, status: "running" }))
        const result = yield* rt.tree.runTurns("main", request.prompt, (text, beforeStep) =>
          runPrompt({
            agent: "main",
            cwd: rt.state.cwd,
            model: rt.model,
            systemPrompt: catalog.systemPrompt,
            toolbox: Effect.succeed(toolbox),
            transcript: session.transcript,
            prompt: text,
            maxSteps: request.maxSteps,
            onEvent,
            beforeStep
          })
        ).pipe(
          Effect.onInterrupt(() => session.updateState((s) => ({ ...s, status: "cancelled" })).pipe(Effect.ignore({ log: "Warn" })))
        )
        yield* session.updateState((s) => ({ ...s, status: statusOfResult(result) }))
        return {
          sessionId: session.id,
          status: result.status,
          result: result.result,
          usage: result.usage,
          subagents: rt.tree.descriptors.all().map(childSummary),
          ...(result.error === undefined ? {} : { error: result.error })
        }
      }))).pipe(Effect.withSpan("AgentHost.prompt", { attributes: { sessionId: request.sessionId } }))

    const sendToChild: AgentHostShape["sendToChild"] = (send) =>
      toHostError(Effect.scoped(Effect.gen(function*() {
        const rt = yield* openRuntime(send.sessionId, send.onChildEvent)
        const outcome = yield* rt.main.subagents.send(send.handle, send.message, "user")
        if (outcome._tag !== "Replied") return yield* new HostError({ reason: "Failed", message: `${send.handle} did not reply` })
        const r = outcome.result
        return { handle: r.handle, status: r.status, result: r.output, usage: r.usage, ...(r.notes === undefined ? {} : { notes: r.notes }) }
      }))).pipe(Effect.withSpan("AgentHost.sendToChild", { attributes: { sessionId: send.sessionId, handle: send.handle } }))

    const host: AgentHostShape = {
      createSession,
      loadSession: (id) =>
        toHostError(Effect.gen(function*() {
          const session = yield* store.open(id)
          const state = yield* session.readState
          const { records, warnings } = yield* session.transcript.read
          yield* logWarnings(warnings)
          return { ...info(state), records }
        })),
      listSessions: toHostError(Effect.map(store.list, (xs) => xs.map(info))),
      prompt,
      listChildren: (sessionId) =>
        toHostError(Effect.gen(function*() {
          const state = yield* (yield* store.open(sessionId)).readState
          const decoded = decodeDescriptors(state)
          yield* logWarnings(decoded.warnings)
          return decoded.records.map(childSummary)
        })),
      sendToChild,
      stopChild: (stop) =>
        toHostError(Effect.gen(function*() {
          const mine = [...(live.get(stop.sessionId) ?? [])]
          if (mine.length > 0) {
            const stopped = yield* Effect.forEach(mine, (tree) => tree.stopHeld(stop.handle, "user"))
            return [...new Set(stopped.flat())]
          }
          const session = yield* store.open(stop.sessionId)
          return (yield* requestStop(session, stop.handle)).map((s) => s.name)
        })).pipe(Effect.withSpan("AgentHost.stopChild", { attributes: { sessionId: stop.sessionId, handle: stop.handle } }))
    }
    return host
  })

/** The harness kit as layers. */
export const Harness = {
  /**
   * The `AgentHost` of a described harness. Needs a `SessionStore` and a `ModelRegistry`
   * (and whatever building its backends and tools needs, e.g. a `ProcessLauncher`); takes
   * `Lane` and `SubagentLimits` from its context when they are provided.
   */
  layer: <E = never, R = never>(options: HarnessOptions<E, R>): Layer.Layer<AgentHost, E, SessionStore | ModelRegistry | Exclude<R, Scope.Scope>> =>
    Layer.effect(AgentHost, makeHost(options))
}
