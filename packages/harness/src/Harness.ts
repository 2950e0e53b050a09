import {
  type AgentCatalog,
  agentPolicyWarnings,
  AgentHost,
  type AgentHostShape,
  type HostChildReply,
  HostError,
  type HostSessionInfo,
  runPrompt,
  statusOfResult,
  type TurnResult
} from "@dsh/agent"
import type { AgentEvent } from "@dsh/core"
import { type ModelConfig, ModelRegistry } from "@dsh/llm"
import { type SessionError, type SessionState, SessionStore } from "@dsh/session"
import { decodeDescriptors, detachChild, Lane, logWarnings, makeMemoryLane, type RebuiltState, rebuildState, requestSend, requestStop, SubagentLimits, type SubagentResult } from "@dsh/subagent"
import { bindDisallowedTools, disallowedBySettings, Hooks, type HooksShape, InheritedDisallowedTools, makeToolbox, noHooks, Permissions, type PermissionsShape } from "@dsh/tools"
import { addCost, addUsage, costOf, emptyUsage } from "@dsh/core"
import { Clock, Effect, Exit, Fiber, Layer, Option, Ref, Scope, Semaphore } from "effect"
import { stat } from "node:fs/promises"
import { childSummary } from "./ChildSummary.ts"
import { makeAgentContext } from "./AgentContext.ts"
import type { Built, HarnessOptions } from "./HarnessOptions.ts"
import { toHostError } from "./HostErrors.ts"
import { sessionHooks } from "./internal/hooks.ts"
import { sessionPermissions } from "./SessionPermissions.ts"

const info = (s: SessionState): HostSessionInfo => ({
  id: s.id,
  agent: s.agent,
  cwd: s.cwd,
  model: s.model,
  status: s.status,
  createdAt: s.createdAt,
  updatedAt: s.updatedAt
})

type ChildListener = (handle: string, event: AgentEvent) => Effect.Effect<void>

const built = <A, E, R>(value: Built<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.isEffect(value) ? value : Effect.succeed(value)

/**
 * The model settings of one agent type: its `[agents.<name>]` key and endpoint over the main
 * ones (the key read from the variable it names, in the main settings' environment). An unset
 * variable leaves the main key: the main profile is the fallback, as the seed's merge says.
 */
export const agentModelConfig = (
  main: ModelConfig,
  profiles: HarnessOptions["agentModels"],
  agent: string | undefined
): ModelConfig => {
  const profile = agent === undefined || profiles === undefined || !Object.hasOwn(profiles, agent) ? undefined : profiles[agent]
  if (profile === undefined) return main
  const key = profile.apiKeyEnv === undefined ? undefined : main.env?.[profile.apiKeyEnv]
  return { ...main, ...(key === undefined || key === "" ? {} : { apiKey: key }), ...(profile.baseUrl === undefined ? {} : { baseUrl: profile.baseUrl }) }
}

/**
 * The catalog with `[agents.<name>]` models over the files' (config is the user's word). A type
 * with its own credentials but no model runs the session's model with them (resolved again,
 * not the parent's instance, which holds the main key).
 */
const withAgentModels = (catalog: AgentCatalog, profiles: HarnessOptions["agentModels"], sessionModel: string): AgentCatalog => {
  if (profiles === undefined || Object.keys(profiles).length === 0) return catalog
  const apply = (d: AgentCatalog["delegates"][number]) => {
    const profile = Object.hasOwn(profiles, d.name) ? profiles[d.name] : undefined
    if (profile === undefined) return d
    const own = profile.apiKeyEnv !== undefined || profile.baseUrl !== undefined
    const model = profile.model ?? d.model ?? (own ? sessionModel : undefined)
    return model === undefined ? d : { ...d, model }
  }
  return { ...catalog, delegates: catalog.delegates.map(apply) }
}

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
/** How long a new session's catalog stays current for its first prompt, and how many are kept. */
const CATALOG_HANDOFF_MS = 5_000
const CATALOG_HANDOFF_LIMIT = 16
/** How many sessions' permission answers a host keeps (least recently used go first). */
const PERMISSIONS_KEPT = 256

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
    const resolveModel = (spec: string, agent?: string) => registry.resolve(spec, agentModelConfig(modelConfig, options.agentModels, agent))

    const catalogOf = (state: SessionState) => options.agents({ cwd: state.cwd, agent: state.agent, extra: state })
    // A session's first prompt usually comes moments after its creation (ACP's session/new then
    // session/prompt; `dsh run`): the catalog read to create it is handed to that first runtime
    // instead of every agent file being read again. Taken once; a later first prompt reads afresh.
    const created = new Map<string, { readonly catalog: AgentCatalog; readonly at: number }>()
    const takeCreatedCatalog = (state: SessionState) =>
      Effect.gen(function*() {
        const handed = created.get(state.id)
        created.delete(state.id)
        const fresh = handed !== undefined && (yield* Clock.currentTimeMillis) - handed.at <= CATALOG_HANDOFF_MS
        return fresh ? handed.catalog : yield* catalogOf(state)
      })
    // One Permissions per session, so "always" answers outlast a runtime: the most recently used
    // PERMISSIONS_KEPT of them (a long-lived host must not keep one per session it ever ran).
    // A session without rules has none to keep.
    const permissionsBySession = new Map<string, PermissionsShape>()
    const permissionsOf = (state: SessionState) => {
      const known = permissionsBySession.get(state.id)
      if (known !== undefined) {
        permissionsBySession.delete(state.id)
        permissionsBySession.set(state.id, known)
        return Effect.succeed<PermissionsShape | undefined>(known)
      }
      return sessionPermissions(options.permissions, { cwd: state.cwd, agent: state.agent, extra: state }).pipe(
        Effect.tap((p) =>
          Effect.sync(() => {
            if (p === undefined) return
            if (permissionsBySession.size >= PERMISSIONS_KEPT) permissionsBySession.delete(permissionsBySession.keys().next().value!)
            permissionsBySession.set(state.id, p)
          })
        )
      )
    }
    /**
     * Runs `effect` under the session's rules (when the harness or a parent gave any), with the
     * main agent's `disallowedTools` binding every agent the effect starts.
     */
    const governed = <A, E, R>(rt: { readonly permissions: PermissionsShape | undefined; readonly catalog: AgentCatalog; readonly hooks: HooksShape }, hooked: Effect.Effect<A, E, R>) => {
      // The session's hooks, like its rules, reach every agent the effect starts (a fiber reference).
      // The main agent's own `hooks` frontmatter applies to it alone (children get the tree's and theirs).
      const effect = rt.hooks === noHooks ? hooked : Effect.provideService(hooked, Hooks, rt.hooks.forAgent(rt.catalog.main.name, rt.catalog.main.hooks))
      if (rt.permissions === undefined) return bindDisallowedTools(rt.catalog.main.disallowedTools)(effect)
      // A parent process's agents' disallowedTools (in its settings) bind this whole tree too.
      const bound = bindDisallowedTools(rt.catalog.main.disallowedTools)(effect).pipe(
        Effect.provideService(InheritedDisallowedTools, disallowedBySettings(rt.permissions.settings))
      )
      return Effect.provideService(bound, Permissions, rt.permissions)
    }

    /** A session's tree and its main agent's context, built in `scope` under the session's lease. */
    const buildRuntime = (sessionId: string, listeners: Set<ChildListener>, scope: Scope.Scope) =>
      Effect.gen(function*() {
        const session = yield* store.open(sessionId)
        // One process runs a session: another live owner makes this fail `Owned`.
        yield* session.acquire
        const state = yield* session.readState
        const model = yield* resolveModel(state.model, state.agent)
        const catalog: AgentCatalog = withAgentModels(yield* takeCreatedCatalog(state), options.agentModels, state.model)
        const permissions = yield* permissionsOf(state)
        const hooks = yield* sessionHooks(options, { id: sessionId, cwd: state.cwd, agent: state.agent, extra: state, transcriptPath: session.transcript.location })
        const onChildEvent = (handle: string, event: AgentEvent) => Effect.forEach(listeners, (listen) => listen(handle, event), { discard: true })
        const main = yield* makeAgentContext({
          delegatesRunOn: options.delegatesRunOn,
          controlTools: options.controlTools,
          createTools: options.createTools,
          pricing: options.pricing,
          subagentModel: options.subagentModel,
          catalog,
          backends,
          tools,
          model,
          session,
          cwd: state.cwd,
          limits,
          lane,
          resolveModel,
          onChildEvent,
          onAnnouncement: options.onAnnouncement,
          admission: options.sharedAdmission === true ? "session" : "memory"
        })
        // Messages other processes send to this session's children come through here.
        yield* main.tree.answerSends((handle, message) =>
          governed({ permissions, catalog, hooks }, main.subagents.send(handle, message, "user")).pipe(
            Effect.map((o) => (o._tag === "Replied" ? o.result : undefined)),
            Effect.mapError((e) => e.message)
          ))
        // SessionStart when this process takes the session up, SessionEnd when it lets it go.
        const sessionHook = (event: "SessionStart" | "SessionEnd") =>
          hooks.has(event)
            ? hooks.run(event, { input: { cwd: state.cwd, agent_id: "main" }, emit: (e) => session.transcript.append(e).pipe(Effect.ignore({ log: "Warn" })) }).pipe(Effect.asVoid)
            : Effect.void
        yield* sessionHook("SessionStart")
        yield* Effect.addFinalizer(() => sessionHook("SessionEnd"))
        return { session, state, model, catalog, tree: main.tree, main, permissions, hooks }
      }).pipe(Scope.provide(scope))

    type Runtime = Effect.Success<ReturnType<typeof buildRuntime>>
    // The sessions this process runs now, one runtime each, shared by every caller (a prompt and
    // a `send` at once use the same tree: a child has one Activation).
    const running = new Map<string, { readonly runtime: Runtime; readonly listeners: Set<ChildListener>; users: number; readonly scope: Scope.Closeable }>()
    const runtimes = yield* Semaphore.make(1)
    /** The session's runtime for the calling scope; `onChildEvent` hears its children meanwhile. */
    const openRuntime = (sessionId: string, onChildEvent?: ChildListener) =>
      Effect.acquireRelease(
        runtimes.withPermit(Effect.gen(function*() {
          const listener: ChildListener = onChildEvent ?? (() => Effect.void)
          const open = running.get(sessionId)
          if (open !== undefined) {
            open.users++
            open.listeners.add(listener)
            return { open, listener }
          }
          const scope = yield* Scope.make()
          const listeners = new Set([listener])
          const runtime = yield* buildRuntime(sessionId, listeners, scope).pipe(Effect.onError(() => Scope.close(scope, Exit.void)))
          const created = { runtime, listeners, users: 1, scope }
          running.set(sessionId, created)
          return { open: created, listener }
        })),
        ({ open, listener }) =>
          runtimes.withPermit(Effect.suspend(() => {
            open.listeners.delete(listener)
            if (--open.users > 0) return Effect.void
            running.delete(sessionId)
            return Scope.close(open.scope, Exit.void).pipe(Effect.andThen(releaseNow(sessionId)))
          }))
      ).pipe(Effect.map(({ open }) => open.runtime))

    // A session this process no longer runs is let go from memory (the store's handle, its
    // caches and open files); whoever asks for it next reads it back from the store.
    const releaseNow = (sessionId: string) =>
      running.has(sessionId) || store.release === undefined ? Effect.void : store.release(sessionId)
    /** After a reader's look at a session (listing, sending, stopping): let it go unless it runs here. */
    const settled = <A, E, R>(sessionId: string, effect: Effect.Effect<A, E, R>) =>
      Effect.ensuring(effect, runtimes.withPermit(Effect.suspend(() => releaseNow(sessionId))))

    /** Children recorded as running whose session no live process owns are lost (readers say so). */
    const withOwner = (sessionId: string) =>
      Effect.gen(function*() {
        const session = yield* store.open(sessionId)
        return { session, orphaned: running.get(sessionId) === undefined && (yield* session.owner) === undefined }
      })
    const asLost = <A extends { readonly status: string }>(orphaned: boolean, x: A): A =>
      orphaned && (x.status === "running" || x.status === "queued") ? { ...x, status: "lost" } : x

    const createSession: AgentHostShape["createSession"] = (create) =>
      toHostError(Effect.gen(function*() {
        yield* checkDirectory(create.cwd)
        // Kept as `adapter:model`: an alias changed later does not change the session's model.
        const model = yield* registry.canonical(create.model ?? defaultModel)
        yield* resolveModel(model)
        const catalog = yield* options.agents({ cwd: create.cwd, agent: create.agent, extra: create.extra ?? {} })
        // Malformed rules (the harness's, or a parent's in `extra`) are refused before anything is written.
        yield* sessionPermissions(options.permissions, { cwd: create.cwd, agent: create.agent, extra: create.extra ?? {} })
        const session = yield* store.create({ agent: catalog.main.name, cwd: create.cwd, model, extra: create.extra })
        const state = yield* session.readState
        // Bounded: sessions created and never prompted do not pile up.
        if (created.size >= CATALOG_HANDOFF_LIMIT) created.delete(created.keys().next().value!)
        created.set(state.id, { catalog, at: yield* Clock.currentTimeMillis })
        // A session created and never prompted does not stay in memory either.
        yield* runtimes.withPermit(Effect.suspend(() => releaseNow(state.id)))
        return info(state)
      })).pipe(Effect.withSpan("AgentHost.createSession"))

    const prompt: AgentHostShape["prompt"] = (request) =>
      toHostError(Effect.scoped(Effect.gen(function*() {
        if (request.model !== undefined) {
          const model = yield* registry.canonical(request.model)
          yield* resolveModel(model)
          yield* (yield* store.open(request.sessionId)).updateState((s) => ({ ...s, model }))
        }
        const rt = yield* openRuntime(request.sessionId, request.onChildEvent)
        const { session, catalog, main } = rt
        // What the turns said and spent so far: the answer of a cancelled prompt.
        let usage = emptyUsage
        let cost: number | undefined
        let said = ""
        const onEvent = (event: AgentEvent) => {
          if (event.type === "usage") {
            usage = addUsage(usage, event.usage)
            cost = addCost(cost, costOf(event.usage, options.pricing?.(event.model)))
          }
          if (event.type === "message" && event.message.role === "assistant" && event.message.content !== "") said = event.message.content
          return request.onEvent?.(event) ?? Effect.void
        }
        const tools = [...main.tools, ...(request.tools ?? [])]
        const toolbox = makeToolbox({
          tools,
          policy: { tools: catalog.main.tools, disallowedTools: catalog.main.disallowedTools },
          inheritedDisallowed: disallowedBySettings(rt.permissions?.settings ?? [])
        })
        // Patterns that can never match are said when the profile applies, not silently ignored.
        for (const message of agentPolicyWarnings(catalog.main, tools.map((t) => t.name), yield* main.subagents.typeNames)) {
          const notice: AgentEvent = { type: "notice", level: "warning", message }
          yield* session.transcript.append(notice).pipe(Effect.ignore({ log: "Warn" }))
          yield* onEvent(notice)
        }
        yield* session.updateState((s) => ({ ...s, status: "running" }))
        // The parts belong to the user's own prompt; later turns of the wake loop answer announcements.
        const turns = governed(rt, rt.tree.runTurns("main", request.prompt, (text, beforeStep) =>
          runPrompt({
            agent: "main",
            agentName: catalog.main.name,
            cwd: rt.state.cwd,
            model: rt.model,
            systemPrompt: catalog.systemPrompt,
            toolbox: Effect.succeed(toolbox),
            transcript: session.transcript,
            prompt: text,
            promptParts: text === request.prompt ? request.promptParts : undefined,
            maxSteps: request.maxSteps,
            onEvent,
            beforeStep
          })
        )).pipe(
          Effect.onInterrupt(() => session.updateState((s) => ({ ...s, status: "cancelled" })).pipe(Effect.ignore({ log: "Warn" })))
        )
        // A cancel interrupts the turns and waits until they are down (children stopped, records
        // written); the prompt then answers with what the turns had said and spent.
        const turning = yield* Effect.forkChild(turns)
        const first = yield* Effect.raceFirst(
          Effect.map(Fiber.await(turning), Option.some),
          Effect.as(request.cancel ?? Effect.never, Option.none())
        )
        if (Option.isNone(first)) {
          yield* Fiber.interrupt(turning)
          // Background children too: the answer lists them as they end up.
          yield* rt.tree.stopHeld("all", "user")
        }
        const result: TurnResult = Option.isSome(first)
          ? yield* first.value
          : { status: "cancelled", result: said, usage, messages: [], durationMs: 0, error: "the prompt was cancelled" }
        yield* session.updateState((s) => ({ ...s, status: statusOfResult(result) }))
        return {
          sessionId: session.id,
          status: result.status,
          result: result.result,
          usage: result.usage,
          ...(cost === undefined ? {} : { cost }),
          subagents: rt.tree.descriptors.all().map(childSummary),
          ...(result.error === undefined ? {} : { error: result.error })
        }
      }))).pipe(Effect.withSpan("AgentHost.prompt", { attributes: { sessionId: request.sessionId } }))

    const replyOf = (handle: string, outcome: { readonly _tag: "Replied"; readonly result: SubagentResult } | { readonly _tag: "Queued" | "Accepted" }): HostChildReply => {
      if (outcome._tag !== "Replied") return { handle, status: "queued", result: "", usage: emptyUsage, notes: `${handle} is running: it gets the message at its next step` }
      const r = outcome.result
      return {
        handle: r.handle,
        status: r.status,
        result: r.output,
        usage: r.usage,
        ...(r.cost === undefined ? {} : { cost: r.cost }),
        ...(r.notes === undefined ? {} : { notes: r.notes })
      }
    }

    /** Here when this process runs the session or nobody does; through the owner otherwise. */
    const sendToChild: AgentHostShape["sendToChild"] = (send) =>
      toHostError(Effect.scoped(Effect.gen(function*() {
        const local = yield* openRuntime(send.sessionId, send.onChildEvent).pipe(
          Effect.map(Option.some),
          Effect.catchIf((e): e is SessionError => e._tag === "SessionError" && e.reason === "Owned", () => Effect.succeed(Option.none()))
        )
        if (Option.isSome(local)) {
          return replyOf(send.handle, yield* governed(local.value, local.value.main.subagents.send(send.handle, send.message, "user")))
        }
        const routed = yield* settled(send.sessionId, store.open(send.sessionId).pipe(
          Effect.flatMap((session) => requestSend(session, send.handle, send.message)),
          Effect.mapError((e) => (typeof e === "string" ? new HostError({ reason: "Failed", message: e }) : e))
        ))
        return replyOf(send.handle, routed)
      }))).pipe(Effect.withSpan("AgentHost.sendToChild", { attributes: { sessionId: send.sessionId, handle: send.handle } }))

    const recoverSession: AgentHostShape["recoverSession"] = (recover) =>
      toHostError(Effect.gen(function*() {
        if (store.recover === undefined) {
          return yield* new HostError({ reason: "Unsupported", message: `session "${recover.sessionId}": this store cannot rebuild a lost state` })
        }
        // What a transcript does not record is what a new session here would get.
        const model = yield* registry.canonical(recover.model ?? defaultModel)
        const catalog = yield* options.agents({ cwd: recover.cwd, agent: undefined, extra: {} })
        const rebuilt = yield* Ref.make<RebuiltState | undefined>(undefined)
        const session = yield* store.recover(recover.sessionId, (handle) =>
          rebuildState(handle, { agent: catalog.main.name, cwd: recover.cwd, model }).pipe(
            Effect.tap((r) => Ref.set(rebuilt, r)),
            Effect.map((r) => r.state)
          ))
        const done = yield* Ref.get(rebuilt)
        return { session: info(yield* session.readState), children: done?.children ?? 0, notes: done?.notes ?? [] }
      })).pipe(Effect.withSpan("AgentHost.recoverSession", { attributes: { sessionId: recover.sessionId } }))

    const openMain: NonNullable<AgentHostShape["openMain"]> = (open) =>
      toHostError(Effect.gen(function*() {
        const rt = yield* openRuntime(open.sessionId, open.onChildEvent)
        const toolbox = makeToolbox({
          tools: [...rt.main.tools, ...(open.tools ?? [])],
          policy: { tools: rt.catalog.main.tools, disallowedTools: rt.catalog.main.disallowedTools },
          inheritedDisallowed: disallowedBySettings(rt.permissions?.settings ?? [])
        })
        return {
          sessionId: rt.session.id,
          cwd: rt.state.cwd,
          toolbox,
          governed: (effect) => governed(rt, effect),
          childTranscript: (handle) =>
            toHostError(rt.session.child(handle).pipe(
              Effect.flatMap((child) => child.transcript.read),
              Effect.map((r) => r.records)
            ))
        }
      }))

    const host: AgentHostShape = {
      openMain,
      createSession,
      recoverSession,
      loadSession: (id) =>
        toHostError(settled(id, Effect.gen(function*() {
          const session = yield* store.open(id)
          const state = yield* session.readState
          const { records, warnings } = yield* session.transcript.read
          yield* logWarnings(warnings)
          return { ...info(state), records }
        }))),
      listSessions: toHostError(Effect.gen(function*() {
        const states = yield* store.list
        const readable = yield* Effect.forEach(states, (s) =>
          s.status !== "running" ? Effect.succeed(info(s)) : settled(s.id, Effect.map(withOwner(s.id), ({ orphaned }) => asLost(orphaned, info(s)))))
        const broken = (yield* store.unreadable).map((u): HostSessionInfo => ({ id: u.id, agent: "", cwd: "", model: "", status: "unreadable", createdAt: "", updatedAt: "", error: u.error }))
        return [...readable, ...broken].sort((a, b) => b.id.localeCompare(a.id))
      })),
      prompt,
      listChildren: (sessionId) =>
        toHostError(settled(sessionId, Effect.gen(function*() {
          const { session, orphaned } = yield* withOwner(sessionId)
          const decoded = decodeDescriptors(yield* session.readState)
          yield* logWarnings(decoded.warnings)
          return decoded.records.map((d) => asLost(orphaned, childSummary(d)))
        }))),
      sendToChild,
      stopChild: (stop) =>
        toHostError(Effect.gen(function*() {
          // This process runs the session: stop here, no round trip.
          const mine = running.get(stop.sessionId)
          if (mine !== undefined) {
            const { tree } = mine.runtime
            // Another session's handle (or a typo) is named as such, with this session's children.
            if (stop.handle !== "all" && tree.descriptors.get(stop.handle) === undefined) {
              const known = tree.descriptors.all().map((d) => d.handle)
              return yield* new HostError({ reason: "NotFound", message: `no child is named "${stop.handle}"; yours: ${known.join(", ") || "(none)"}` })
            }
            return yield* tree.stopHeld(stop.handle, "user")
          }
          return yield* settled(stop.sessionId, Effect.gen(function*() {
            const session = yield* store.open(stop.sessionId)
            return (yield* requestStop(session, stop.handle)).map((s) => s.name)
          }))
        })).pipe(Effect.withSpan("AgentHost.stopChild", { attributes: { sessionId: stop.sessionId, handle: stop.handle } })),
      detachChild: (detach) =>
        toHostError(Effect.gen(function*() {
          // Only the process whose call waits for the child can let it go of it.
          const mine = running.get(detach.sessionId)
          if (mine === undefined) {
            return yield* new HostError({ reason: "NotFound", message: `session ${detach.sessionId} is not running in this process; nothing to detach` })
          }
          return (yield* detachChild(mine.runtime.tree, detach.handle, "user")).map((r) => r.handle)
        })).pipe(Effect.withSpan("AgentHost.detachChild", { attributes: { sessionId: detach.sessionId, handle: detach.handle } }))
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
