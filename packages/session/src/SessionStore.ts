import type { AgentEvent, WireRecord } from "@dsh/core"
import { Context, type Effect, type Scope, type Stream } from "effect"
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
  readonly records: ReadonlyArray<WireRecord>
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
  readonly append: (event: AgentEvent) => Effect.Effect<void, SessionError>
  readonly sync: Effect.Effect<void, SessionError>
  /** Everything appended so far. */
  readonly read: Effect.Effect<ReadResult, SessionError>
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
  /** Sessions whose state cannot be read (a corrupt `state.json`), with the reason: never silently dropped. */
  readonly unreadable: Effect.Effect<ReadonlyArray<{ readonly id: string; readonly error: string }>, SessionError>
  /** The most recently updated session (optionally in one working directory), for `--continue`. */
  readonly latest: (filter?: { readonly cwd?: string | undefined }) => Effect.Effect<SessionHandle | undefined, SessionError>
}

/** The persistence service; see `FileSessionStore` (default) and `@dsh/session/testing`. */
export class SessionStore extends Context.Service<SessionStore, SessionStoreShape>()("@dsh/session/SessionStore") {}
