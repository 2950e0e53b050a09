/**
 * An in-memory `SessionStore` for tests, with the file store's behaviour: the same errors,
 * ordering and seq numbering, and appends written through to the shared `Data`; a second store
 * made over the same `Data` acts like another process, or the process after a restart.
 *
 * @since 0.1.0
 */
import { type AgentEvent, isEphemeral, makeId, type WireRecord } from "@dsh/core"
import { Clock, Effect, Layer, Semaphore } from "effect"
import { checkId, initialState, latestOf, newestFirst, notFound, nowIso } from "./internal/state.ts"
import { pollState } from "./internal/watch.ts"
import { SessionError } from "./SessionError.ts"
import {
  type ChildStore,
  type SessionHandle,
  type SessionOwner,
  type SessionState,
  SessionStore,
  type SessionStoreShape,
  type Transcript
} from "./SessionStore.ts"

/** What a "disk" holds for one session. Values are JSON copies, as the file store would read back. */
export interface SessionData {
  state: SessionState
  /** The store (standing for a process) that holds the session's lease, if any. */
  owner?: { readonly store: string; readonly acquiredAt: string } | undefined
  readonly wire: Array<WireRecord>
  readonly children: Map<string, { readonly wire: Array<WireRecord>; meta: unknown }>
  readonly tasks: Map<string, unknown>
}

/**
 * The backing "disk". Share one between stores to simulate a restart; inspect it in tests.
 *
 * @since 0.1.0
 */
export interface Data {
  readonly sessions: Map<string, SessionData>
}

/** @since 0.1.0 */
export const makeData = (): Data => ({ sessions: new Map() })

/** A JSON round trip: what a file store would hand back, never an alias of the caller's object. */
const copy = <A>(value: A): A => value === undefined ? value : JSON.parse(JSON.stringify(value))

/** Written through, like the file store: every append is in the shared "disk" at once. */
const makeTranscript = (wire: Array<WireRecord>, location: string): Transcript => {
  let seq = wire.reduce((max, r) => Math.max(max, r.seq), 0)
  return {
    location,
    append: (event: AgentEvent) =>
      isEphemeral(event) ? Effect.void : Effect.clockWith((clock) =>
        Effect.sync(() => {
          seq += 1
          const ts = new Date(clock.currentTimeMillisUnsafe()).toISOString()
          wire.push(copy({ seq, ts, ...event }))
        })
      ),
    sync: Effect.void,
    read: Effect.sync(() => ({ records: wire.map(copy), warnings: [] }))
  }
}

const makeHandle = (data: SessionData, id: string, store: string): Effect.Effect<SessionHandle> =>
  Effect.gen(function*() {
    // Each store stands for one process: its handle's users share the lease.
    let users = 0
    const asOwner = (o: NonNullable<SessionData["owner"]>): SessionOwner => ({ pid: process.pid, host: `memory:${o.store}`, acquiredAt: o.acquiredAt })
    const take = Effect.gen(function*() {
      const current = data.owner
      if (current !== undefined && current.store !== store) {
        return yield* new SessionError({ reason: "Owned", detail: `session "${id}" is being run by another process (${asOwner(current).host})` })
      }
      users++
      data.owner ??= { store, acquiredAt: yield* nowIso }
      return asOwner(data.owner)
    })
    const give = Effect.sync(() => {
      if (--users === 0 && data.owner?.store === store) data.owner = undefined
    })
    const stateLock = yield* Semaphore.make(1)
    const location = `memory://sessions/${id}`
    const children = new Map<string, ChildStore>()
    const child = (name: string) =>
      checkId("child name", name).pipe(Effect.andThen(Effect.sync(() => {
        const known = children.get(name)
        if (known !== undefined) return known
        const stored = data.children.get(name) ?? { wire: [], meta: undefined }
        data.children.set(name, stored)
        const made: ChildStore = {
          name,
          location: `${location}/agents/${name}`,
          transcript: makeTranscript(stored.wire, `${location}/agents/${name}/wire.jsonl`),
          readMeta: Effect.sync(() => copy(stored.meta)),
          writeMeta: (meta) => Effect.sync(() => void (stored.meta = copy(meta)))
        }
        children.set(name, made)
        return made
      })))
    return {
      id,
      location,
      transcript: makeTranscript(data.wire, `${location}/wire.jsonl`),
      readState: Effect.sync(() => copy(data.state)),
      updateState: (f) =>
        stateLock.withPermit(Effect.gen(function*() {
          const next: SessionState = copy({ ...f(copy(data.state)), updatedAt: yield* nowIso })
          data.state = next
          return copy(next)
        })),
      // Every update replaces `data.state`, so its identity is the change to look for.
      acquire: Effect.acquireRelease(take, () => give),
      owner: Effect.sync(() => (data.owner === undefined ? undefined : asOwner(data.owner))),
      watchState: pollState(Effect.sync(() => data.state), Effect.sync(() => copy(data.state)), "20 millis"),
      child,
      children: Effect.sync(() => [...data.children.keys()].sort()),
      writeTask: (runId, record) =>
        checkId("run id", runId).pipe(Effect.andThen(Effect.sync(() => void data.tasks.set(runId, copy(record))))),
      readTasks: Effect.sync(() => [...data.tasks.keys()].sort().map((k) => copy(data.tasks.get(k)))),
      readTask: (runId) => checkId("run id", runId).pipe(Effect.andThen(Effect.sync(() => copy(data.tasks.get(runId)))))
    } satisfies SessionHandle
  })

/**
 * Builds a memory store over `data` (a fresh one by default).
 *
 * @since 0.1.0
 */
export const make = (options?: { readonly data?: Data | undefined }): Effect.Effect<SessionStoreShape> =>
  Effect.sync(() => {
    const data = options?.data ?? makeData()
    const handles = new Map<string, SessionHandle>()
    const self = Math.random().toString(36).slice(2, 10)

    const create: SessionStoreShape["create"] = (init) =>
      Effect.gen(function*() {
        const id = init.id ?? makeId(new Date(yield* Clock.currentTimeMillis))
        yield* checkId("session id", id)
        if (data.sessions.has(id)) {
          return yield* new SessionError({ reason: "Exists", detail: `session "${id}" already exists` })
        }
        const stored: SessionData = {
          state: copy(initialState(id, init, yield* nowIso)),
          wire: [],
          children: new Map(),
          tasks: new Map()
        }
        data.sessions.set(id, stored)
        const handle = yield* makeHandle(stored, id, self)
        handles.set(id, handle)
        return handle
      })

    const open: SessionStoreShape["open"] = (id) =>
      checkId("session id", id).pipe(Effect.andThen(Effect.suspend(() => {
        const known = handles.get(id)
        if (known !== undefined) return Effect.succeed(known)
        const stored = data.sessions.get(id)
        if (stored === undefined) return Effect.fail(notFound(id))
        return makeHandle(stored, id, self).pipe(Effect.map((made) => {
          const first = handles.get(id) ?? made
          handles.set(id, first)
          return first
        }))
      })))

    const list = Effect.sync(() => newestFirst([...data.sessions.values()].map((s) => copy(s.state))))

    const latest: SessionStoreShape["latest"] = (filter) =>
      list.pipe(Effect.flatMap((states) => {
        const found = latestOf(states, filter)
        return found === undefined ? Effect.succeed(undefined) : open(found.id)
      }))

    // Memory never holds a state it cannot read.
    return SessionStore.of({ create, open, list, unreadable: Effect.succeed([]), latest })
  })

/**
 * A fresh, empty memory store as the `SessionStore` service.
 *
 * @since 0.1.0
 */
export const layer: Layer.Layer<SessionStore> = Layer.effect(SessionStore, make())

/**
 * A memory store over shared `data`, e.g. to "restart" the process between two layers.
 *
 * @since 0.1.0
 */
export const layerWith = (options: { readonly data?: Data | undefined }): Layer.Layer<SessionStore> =>
  Layer.effect(SessionStore, make(options))
