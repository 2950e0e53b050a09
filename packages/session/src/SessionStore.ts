import type { Events } from "@dsh/core"
import { Context, Effect, MutableRef, type Scope, type Stream } from "effect"
import type { SessionError } from "./SessionError.ts"

/** Lifecycle of a session's main agent as `sessions list` shows it. */
export type SessionStatus = "idle" | "running" | "completed" | "failed" | "cancelled"

/**
 * `state.json`: the session's small, atomically replaced state. Packages add their own
 * top-level keys (`subagents`, `dynamicAgents`, …) and must keep the keys they do not own.
 */
export interface SessionState {
  readonly version: 1
  readonly id: string
  readonly agent: string
  readonly cwd: string
  readonly model: string
  readonly createdAt: string
  readonly updatedAt: string
  readonly status: SessionStatus
  readonly [extension: string]: unknown
}

/** What `Transcript.read` returns: the records that parsed, and what was skipped. */
export interface ReadResult {
  readonly records: ReadonlyArray<Events.WireRecord>
  /** E.g. a torn last line after a crash, which is skipped. */
  readonly warnings: ReadonlyArray<string>
}

/**
 * An append-only event log (`wire.jsonl`), written through: each `append` reaches the log as
 * it happens (visible to every reader, other processes included; a crash loses at most the
 * event being written), and `sync` makes what was appended durable (fsync): call it at every
 * turn boundary and before an outcome is announced.
 */
export interface Transcript {
  /** Where the log lives, for display (a path for the file store). */
  readonly location: string
  readonly append: (event: Events.AgentEvent) => Effect.Effect<void, SessionError>
  readonly sync: Effect.Effect<void, SessionError>
  /** Everything appended so far (from the session's archive when the transcript is archived). */
  readonly read: Effect.Effect<ReadResult, SessionError>
  /**
   * What was appended after `cursor`, for followers (`dsh subagents watch`): start at 0 and pass
   * the returned `cursor` back next time. Cursors are opaque (a byte offset for the file store, a
   * record index for the memory store); a line still being written is left for the next call.
   */
  readonly readFrom: (cursor: number) => Effect.Effect<ReadFromResult, SessionError>
}

/** `Transcript.readFrom`'s answer: the new records and where to continue. */
export interface ReadFromResult extends ReadResult {
  readonly cursor: number
}

/**
 * A child whose transcript was moved into the session's archive (compressed). It stays readable
 * (`Transcript.read`) and continuable: the first append restores it.
 */
export interface ArchivedChild {
  readonly name: string
  /** The transcript's size before compression. */
  readonly bytes: number
  /** Its size in the archive. */
  readonly archivedBytes: number
  readonly archivedAt: string
}

/** One child's persisted data: its transcript plus `meta.json`. */
export interface ChildStore {
  readonly name: string
  readonly transcript: Transcript
  readonly readMeta: Effect.Effect<unknown | undefined, SessionError>
  readonly writeMeta: (meta: unknown) => Effect.Effect<void, SessionError>
  /** A directory the child may use for its own persisted data (e.g. an out-of-process child's session). */
  readonly location: string
}

/** The process that runs a session: the holder of its ownership lease. */
export interface SessionOwner {
  readonly pid: number
  readonly host: string
  readonly acquiredAt: string
}

/** One session. Stores hand out one handle per id, so its buffers are shared in a process. */
export interface SessionHandle {
  readonly id: string
  /** The session directory, for display and for the CLI's log file. */
  readonly location: string
  readonly transcript: Transcript
  readonly readState: Effect.Effect<SessionState, SessionError>
  /** Read-modify-write of `state.json`, serialized within the process and written atomically. */
  readonly updateState: (f: (state: SessionState) => SessionState) => Effect.Effect<SessionState, SessionError>
  /**
   * The state now, then again after every change, made by this process or another: how the
   * process that runs a session hears requests (stop) from others. A database store can push;
   * the file store checks `state.json` a few times a second.
   */
  readonly watchState: Stream.Stream<SessionState, SessionError>
  /**
   * Takes the session's ownership lease for the calling scope: one process runs a session at
   * a time. Re-entrant within one store (a process's own nested users share it); fails
   * `Owned`, naming the owner, while another live process holds it; a lease whose process is
   * gone is taken over.
   */
  readonly acquire: Effect.Effect<SessionOwner, SessionError, Scope.Scope>
  /** Who runs the session now: the lease holder, if that process is alive. Readers never take the lease. */
  readonly owner: Effect.Effect<SessionOwner | undefined, SessionError>
  readonly child: (name: string) => Effect.Effect<ChildStore, SessionError>
  readonly children: Effect.Effect<ReadonlyArray<string>, SessionError>
  /** Background-run records (`tasks/<runId>.json`), written atomically. */
  readonly writeTask: (runId: string, record: unknown) => Effect.Effect<void, SessionError>
  readonly readTasks: Effect.Effect<ReadonlyArray<unknown>, SessionError>
  /** One background-run record, or undefined when there is none. */
  readonly readTask: (runId: string) => Effect.Effect<unknown | undefined, SessionError>
  /**
   * Moves a child's transcript into the session's archive, compressed. Crash-safe: the archive
   * is written and made durable before the transcript is removed, so a crash at any point leaves
   * the transcript whole in one place or the other. Takes the session's lease for the call
   * (`Owned` while another live process runs the session). Undefined when the child has no
   * transcript to archive. With `dryRun`, reports what it would do and changes nothing.
   */
  readonly archiveChild: (name: string, options?: { readonly dryRun?: boolean | undefined }) => Effect.Effect<ArchivedChild | undefined, SessionError>
  /**
   * Brings an archived transcript back (appending to it does so by itself); false when there was
   * nothing to restore. Takes the lease for the call, like `archiveChild`.
   */
  readonly restoreChild: (name: string) => Effect.Effect<boolean, SessionError>
  /** The children whose transcripts are in the archive, by name. */
  readonly archivedChildren: Effect.Effect<ReadonlyArray<ArchivedChild>, SessionError>
  /** The bytes the session occupies in the store (transcripts, archive, state, records). */
  readonly footprint: Effect.Effect<number, SessionError>
}

/** `create`'s input. `id` defaults to a fresh `makeId()`; `extra` adds top-level keys to `state.json`. */
export interface CreateSession {
  readonly agent: string
  readonly cwd: string
  readonly model: string
  readonly id?: string | undefined
  readonly extra?: Readonly<Record<string, unknown>> | undefined
}

/**
 * The persistence seam (a file store by default; a database or object store later).
 * Nothing outside a store implementation assumes a local path.
 */
export interface SessionStoreShape {
  readonly create: (init: CreateSession) => Effect.Effect<SessionHandle, SessionError>
  /** Opens an existing session (`NotFound`, `InvalidId`, `Corrupt`); the same handle is returned while this store lives. */
  readonly open: (id: string) => Effect.Effect<SessionHandle, SessionError>
  /** All sessions, newest first. */
  readonly list: Effect.Effect<ReadonlyArray<SessionState>, SessionError>
  /**
   * Sessions whose state cannot be read (a corrupt or missing `state.json` beside a transcript),
   * with the reason: never silently dropped.
   */
  readonly unreadable: Effect.Effect<ReadonlyArray<{ readonly id: string; readonly error: string }>, SessionError>
  /**
   * Opens a session whose state is missing (`open` fails `StateMissing`) after writing the state
   * `rebuild` makes from what is left (the handle reads transcripts, children and tasks; its
   * `readState` fails until then). A state that appeared meanwhile is kept, never replaced; `Owned` while a live process runs the session.
   * `NotFound` when there is nothing to recover. Optional: a store that keeps state and transcript
   * together (one database) does not lose one alone.
   */
  readonly recover?: (
    id: string,
    rebuild: (session: SessionHandle) => Effect.Effect<SessionState, SessionError>
  ) => Effect.Effect<SessionHandle, SessionError>
  /** The most recently updated session (optionally in one working directory), for `--continue`. */
  readonly latest: (filter?: { readonly cwd?: string | undefined }) => Effect.Effect<SessionHandle | undefined, SessionError>
  /**
   * Deletes a session and everything in it (`NotFound`; `Owned` while a live process runs it):
   * it vanishes from `list` at once, then its data is removed.
   */
  readonly remove: (id: string) => Effect.Effect<void, SessionError>
  /**
   * The session is settled in this process (its run is over): the store forgets its handle and
   * what that handle caches or keeps open, unless this process still holds the session's lease.
   * Nothing is lost: the next `open` reads the session back from the store. A long-lived host
   * calls it so that finished sessions do not stay in its memory. Optional (a no-op when absent).
   */
  readonly release?: ((id: string) => Effect.Effect<void>) | undefined
}

/** The persistence service; see `FileSessionStore` (the default) and `MemorySessionStore` (persists nothing). */
export class SessionStore extends Context.Service<SessionStore, SessionStoreShape>()("@dsh/session/SessionStore") {}

/**
 * `updateState` that also returns a value computed from the state it changed (a number handed
 * out, whether a limit admitted): `f` gives the value and the new state. `updateState`'s callback
 * is synchronous and a store may call it again after a clash, so the value is the one of the call
 * whose state was written.
 */
export const modifyState = <A>(
  handle: Pick<SessionHandle, "updateState">,
  f: (state: SessionState) => readonly [A, SessionState]
): Effect.Effect<A, SessionError> =>
  Effect.suspend(() => {
    // Set by each call of the (synchronous) function; the last one's state is the one written.
    const last = MutableRef.make<{ readonly value: A } | undefined>(undefined)
    return handle.updateState((state) => {
      const [value, next] = f(state)
      MutableRef.set(last, { value })
      return next
    }).pipe(Effect.flatMap(() => {
      const called = MutableRef.get(last)
      return called === undefined ? Effect.die("updateState returned without calling its function") : Effect.succeed(called.value)
    }))
  })
