/**
 * An in-memory `SessionStore`: the store of a library or app that persists nothing, and of
 * tests. It has the file store's behaviour (it passes the same conformance suite): the same errors,
 * ordering and seq numbering, and appends written through to the shared `Data`; a second store
 * made over the same `Data` acts like another process, or the process after a restart.
 *
 * @since 0.1.0
 */
import { Events, Ids } from "@dsh/core"
import { Clock, Effect, Layer, Semaphore } from "effect"
import { makeHandleCache } from "./internal/handles.ts"
import { checkId, initialState, latestOf, newestFirst, notFound, nowIso, snapshot } from "./internal/state.ts"
import { pollState } from "./internal/watch.ts"
import { SessionError } from "./SessionError.ts"
import {
  type ArchivedChild,
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
  readonly wire: Array<Events.WireRecord>
  readonly children: Map<string, ChildData>
  readonly tasks: Map<string, unknown>
}

/** One child on the "disk": its live transcript, or its archive (gzip of the JSONL, as the file store writes). */
export interface ChildData {
  readonly wire: Array<Events.WireRecord>
  meta: unknown
  archived?: { readonly gz: Uint8Array; readonly bytes: number; readonly archivedAt: string } | undefined
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

/**
 * What a file store would hand back (a JSON round trip), never an alias of the caller's object:
 * a frozen snapshot, so what is stored is shared with readers without a copy per read.
 */
const copy = <A>(value: A): A => value === undefined ? value : snapshot(value)

const encodeWire = (wire: ReadonlyArray<Events.WireRecord>): string => wire.map((r) => `${JSON.stringify(r)}\n`).join("")
const decodeArchive = (gz: Uint8Array): Array<Events.WireRecord> =>
  process.getBuiltinModule("node:zlib").gunzipSync(gz).toString("utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Events.WireRecord)

/** Moves an archived child's records back into its live transcript. */
const restoreData = (stored: ChildData): boolean => {
  if (stored.archived === undefined) return false
  stored.wire.unshift(...decodeArchive(stored.archived.gz))
  stored.archived = undefined
  return true
}

/**
 * Written through, like the file store: every append is in the shared "disk" at once. A child's
 * archived records are read from its archive, and the first append restores them.
 */
const makeTranscript = (
  stored: { readonly wire: Array<Events.WireRecord>; readonly archived?: ChildData["archived"] },
  location: string,
  restore: () => boolean = () => false
): Transcript => {
  const { wire } = stored
  const lastSeq = (records: ReadonlyArray<Events.WireRecord>) => records.reduce((max, r) => Math.max(max, r.seq), 0)
  const visible = () => (wire.length === 0 && stored.archived !== undefined ? decodeArchive(stored.archived.gz) : wire)
  let seq = lastSeq(visible())
  return {
    location,
    append: (event: Events.AgentEvent) =>
      Events.isEphemeral(event) ? Effect.void : Effect.clockWith((clock) =>
        Effect.sync(() => {
          if (restore()) seq = Math.max(seq, lastSeq(wire))
          seq += 1
          const ts = new Date(clock.currentTimeMillisUnsafe()).toISOString()
          wire.push(copy({ seq, ts, ...event }))
        })
      ),
    sync: Effect.void,
    read: Effect.sync(() => ({ records: visible().map(copy), warnings: [] })),
    readFrom: (cursor) =>
      Effect.sync(() => {
        const records = visible()
        return { records: records.slice(cursor).map(copy), warnings: [], cursor: Math.max(cursor, records.length) }
      })
  }
}

const makeHandle = (data: SessionData, id: string, store: string): Effect.Effect<{ readonly handle: SessionHandle; readonly letGo: Effect.Effect<boolean> }> =>
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
        const stored: ChildData = data.children.get(name) ?? { wire: [], meta: undefined }
        data.children.set(name, stored)
        const made: ChildStore = {
          name,
          location: `${location}/agents/${name}`,
          transcript: makeTranscript(stored, `${location}/agents/${name}/wire.jsonl`, () => restoreData(stored)),
          readMeta: Effect.sync(() => copy(stored.meta)),
          writeMeta: (meta) => Effect.sync(() => void (stored.meta = copy(meta)))
        }
        children.set(name, made)
        return made
      })))
    const acquire = Effect.acquireRelease(take, () => give)
    const underLease = <A>(effect: Effect.Effect<A, SessionError>) => Effect.scoped(acquire.pipe(Effect.andThen(effect)))
    const archivedOf = (name: string, c: ChildData): ArchivedChild | undefined =>
      c.archived === undefined ? undefined : { name, bytes: c.archived.bytes, archivedBytes: c.archived.gz.length, archivedAt: c.archived.archivedAt }
    const archiveChild: SessionHandle["archiveChild"] = (name, options) =>
      checkId("child name", name).pipe(Effect.andThen(Effect.suspend(() => {
        const stored = data.children.get(name)
        if (stored === undefined || stored.wire.length === 0) return Effect.succeed(undefined)
        const work = Effect.gen(function*() {
          const records = stored.archived === undefined ? stored.wire : [...decodeArchive(stored.archived.gz), ...stored.wire]
          const text = encodeWire(records)
          const archived = { gz: process.getBuiltinModule("node:zlib").gzipSync(text), bytes: Buffer.byteLength(text), archivedAt: yield* nowIso }
          if (options?.dryRun === true) return archivedOf(name, { ...stored, archived })
          stored.archived = archived
          stored.wire.splice(0)
          return archivedOf(name, stored)
        })
        return options?.dryRun === true ? work : underLease(work)
      })))
    const footprint = Effect.sync(() =>
      Buffer.byteLength(JSON.stringify(data.state)) + Buffer.byteLength(encodeWire(data.wire)) +
      [...data.children.values()].reduce((n, c) => n + Buffer.byteLength(encodeWire(c.wire)) + Buffer.byteLength(JSON.stringify(c.meta ?? null)) + (c.archived?.gz.length ?? 0), 0) +
      [...data.tasks.values()].reduce<number>((n, t) => n + Buffer.byteLength(JSON.stringify(t)), 0)
    )
    const handle = {
      id,
      location,
      transcript: makeTranscript(data, `${location}/wire.jsonl`),
      readState: Effect.sync(() => copy(data.state)),
      updateState: (f) =>
        stateLock.withPermit(Effect.gen(function*() {
          const next: SessionState = copy({ ...f(copy(data.state)), updatedAt: yield* nowIso })
          data.state = next
          return copy(next)
        })),
      // Every update replaces `data.state`, so its identity is the change to look for.
      acquire,
      owner: Effect.sync(() => (data.owner === undefined ? undefined : asOwner(data.owner))),
      watchState: pollState(Effect.sync(() => data.state), Effect.sync(() => copy(data.state)), "20 millis"),
      child,
      children: Effect.sync(() => [...data.children.keys()].sort()),
      writeTask: (runId, record) =>
        checkId("run id", runId).pipe(Effect.andThen(Effect.sync(() => void data.tasks.set(runId, copy(record))))),
      readTasks: Effect.sync(() => [...data.tasks.keys()].sort().map((k) => copy(data.tasks.get(k)))),
      readTask: (runId) => checkId("run id", runId).pipe(Effect.andThen(Effect.sync(() => copy(data.tasks.get(runId))))),
      archiveChild,
      restoreChild: (name) =>
        checkId("child name", name).pipe(Effect.andThen(underLease(Effect.sync(() => {
          const stored = data.children.get(name)
          return stored === undefined ? false : restoreData(stored)
        })))),
      archivedChildren: Effect.sync(() =>
        [...data.children.entries()].flatMap(([name, c]) => archivedOf(name, c) ?? []).sort((a, b) => a.name.localeCompare(b.name))
      ),
      footprint
    } satisfies SessionHandle
    // Released: only `data` (the "disk") keeps the session; a fresh handle reads it back.
    return { handle, letGo: Effect.sync(() => users === 0) }
  })

/**
 * Builds a memory store over `data` (a fresh one by default).
 *
 * @since 0.1.0
 */
export const make = (options?: { readonly data?: Data | undefined }): Effect.Effect<SessionStoreShape> =>
  Effect.sync(() => {
    const data = options?.data ?? makeData()
    const handles = makeHandleCache()
    const self = Math.random().toString(36).slice(2, 10)

    const create: SessionStoreShape["create"] = (init) =>
      Effect.gen(function*() {
        const id = init.id ?? Ids.makeId(new Date(yield* Clock.currentTimeMillis))
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
        const made = yield* makeHandle(stored, id, self)
        return handles.remember(made.handle, made.letGo)
      })

    const open: SessionStoreShape["open"] = (id) =>
      checkId("session id", id).pipe(Effect.andThen(Effect.suspend(() => {
        const known = handles.get(id)
        if (known !== undefined) return Effect.succeed(known)
        const stored = data.sessions.get(id)
        if (stored === undefined) return Effect.fail(notFound(id))
        return makeHandle(stored, id, self).pipe(Effect.map((made) => handles.remember(made.handle, made.letGo)))
      })))

    const list = Effect.sync(() => newestFirst([...data.sessions.values()].map((s) => copy(s.state))))

    const latest: SessionStoreShape["latest"] = (filter) =>
      list.pipe(Effect.flatMap((states) => {
        const found = latestOf(states, filter)
        return found === undefined ? Effect.succeed(undefined) : open(found.id)
      }))

    const remove: SessionStoreShape["remove"] = (id) =>
      open(id).pipe(Effect.flatMap((handle) =>
        Effect.gen(function*() {
          const owner = yield* handle.owner
          if (owner !== undefined) {
            return yield* new SessionError({ reason: "Owned", detail: `session "${id}" is being run (${owner.host}); it was not removed` })
          }
          data.sessions.delete(id)
          handles.forget(id)
        })
      ))

    // Memory never holds a state it cannot read.
    return SessionStore.of({ create, open, list, unreadable: Effect.succeed([]), latest, remove, release: handles.release })
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
