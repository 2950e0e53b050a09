import { AgentHost } from "@dsh/agent"
import type { ModelRegistry } from "@dsh/llm"
import type { SessionStore } from "@dsh/session"
import { Records, SessionRecovery } from "@dsh/subagent"
import { InheritedDisallow, Toolbox } from "@dsh/tools"
import { Effect, Ref } from "effect"
import { statSync } from "node:fs"
import type { HarnessOptions } from "../HarnessOptions.ts"
import { toHostError } from "../HostErrors.ts"
import { sessionPermissions } from "../SessionPermissions.ts"
import type { CatalogHandoff } from "./catalogs.ts"
import { governed } from "./permissions.ts"
import type { RuntimeDeps } from "./runtime.ts"
import { asLost, type RunningSessions } from "./sessions.ts"

const info = (s: SessionStore.SessionState): AgentHost.HostSessionInfo => ({
  id: s.id,
  agent: s.agent,
  cwd: s.cwd,
  model: s.model,
  status: s.status,
  createdAt: s.createdAt,
  updatedAt: s.updatedAt
})

/**
 * A missing working directory is the caller's input to fix, found before anything is written.
 * One synchronous `stat` (microseconds) rather than a round trip through the thread pool, which a
 * busy host makes late for every new session.
 */
const checkDirectory = (cwd: string) =>
  Effect.try({ try: () => statSync(cwd), catch: () => new AgentHost.HostError({ reason: "InvalidInput", message: `${cwd}: no such directory` }) }).pipe(
    Effect.flatMap((s) => s.isDirectory() ? Effect.void : Effect.fail(new AgentHost.HostError({ reason: "InvalidInput", message: `${cwd} is not a directory` })))
  )

export interface SessionCallDeps {
  readonly options: HarnessOptions<unknown, unknown>
  readonly store: SessionStore.SessionStoreShape
  readonly registry: ModelRegistry.ModelRegistryShape
  readonly defaultModel: string
  readonly resolveModel: RuntimeDeps["resolveModel"]
  readonly catalogs: CatalogHandoff
  readonly sessions: RunningSessions
}

/** The host's calls on sessions themselves: create, recover, load, list, and the main agent's seam. */
export const makeSessionCalls = (
  deps: SessionCallDeps
): Pick<AgentHost.AgentHostShape, "createSession" | "recoverSession" | "loadSession" | "listSessions"> & { readonly openMain: NonNullable<AgentHost.AgentHostShape["openMain"]> } => {
  const { options, store, registry, sessions } = deps
  return {
    createSession: (create) =>
      toHostError(Effect.gen(function*() {
        yield* checkDirectory(create.cwd)
        // Kept as `adapter:model`: an alias changed later does not change the session's model.
        const model = yield* registry.canonical(create.model ?? deps.defaultModel)
        yield* deps.resolveModel(model)
        const catalog = yield* options.agents({ cwd: create.cwd, agent: create.agent, extra: create.extra ?? {} })
        // Malformed rules (the harness's, or a parent's in `extra`) are refused before anything is written.
        yield* sessionPermissions(options.permissions, { cwd: create.cwd, agent: create.agent, extra: create.extra ?? {} })
        const session = yield* store.create({ agent: catalog.main.name, cwd: create.cwd, model, extra: create.extra })
        const state = yield* session.readState
        yield* deps.catalogs.hand(state.id, catalog)
        // A session created and never prompted does not stay in memory either.
        yield* sessions.releaseIdle(state.id)
        return info(state)
      })).pipe(Effect.withSpan("AgentHost.createSession")),

    recoverSession: (recover) =>
      toHostError(Effect.gen(function*() {
        if (store.recover === undefined) {
          return yield* new AgentHost.HostError({ reason: "Unsupported", message: `session "${recover.sessionId}": this store cannot rebuild a lost state` })
        }
        // What a transcript does not record is what a new session here would get.
        const model = yield* registry.canonical(recover.model ?? deps.defaultModel)
        const catalog = yield* options.agents({ cwd: recover.cwd, agent: undefined, extra: {} })
        const rebuilt = yield* Ref.make<SessionRecovery.RebuiltState | undefined>(undefined)
        const session = yield* store.recover(recover.sessionId, (handle) =>
          SessionRecovery.rebuildState(handle, { agent: catalog.main.name, cwd: recover.cwd, model }).pipe(
            Effect.tap((r) => Ref.set(rebuilt, r)),
            Effect.map((r) => r.state)
          ))
        const done = yield* Ref.get(rebuilt)
        return { session: info(yield* session.readState), children: done?.children ?? 0, notes: done?.notes ?? [] }
      })).pipe(Effect.withSpan("AgentHost.recoverSession", { attributes: { sessionId: recover.sessionId } })),

    loadSession: (id) =>
      toHostError(sessions.settled(id, Effect.gen(function*() {
        const session = yield* store.open(id)
        const state = yield* session.readState
        const { records, warnings } = yield* session.transcript.read
        yield* Records.logWarnings(warnings)
        return { ...info(state), records }
      }))),

    listSessions: toHostError(Effect.gen(function*() {
      const states = yield* store.list
      const readable = yield* Effect.forEach(states, (s) =>
        s.status !== "running" ? Effect.succeed(info(s)) : sessions.settled(s.id, Effect.map(sessions.withOwner(s.id), ({ orphaned }) => asLost(orphaned, info(s)))))
      const broken = (yield* store.unreadable).map((u): AgentHost.HostSessionInfo => ({ id: u.id, agent: "", cwd: "", model: "", status: "unreadable", createdAt: "", updatedAt: "", error: u.error }))
      return [...readable, ...broken].sort((a, b) => b.id.localeCompare(a.id))
    })),

    openMain: (open) =>
      toHostError(Effect.gen(function*() {
        const rt = yield* sessions.openRuntime(open.sessionId, open.onChildEvent)
        const toolbox = Toolbox.make({
          tools: [...rt.main.tools, ...(open.tools ?? [])],
          policy: { tools: rt.catalog.main.tools, disallowedTools: rt.catalog.main.disallowedTools },
          inheritedDisallowed: InheritedDisallow.disallowedBySettings(rt.permissions?.settings ?? [])
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
  }
}
