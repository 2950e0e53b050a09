import { type SessionError, SessionStore } from "@dsh/session"
import { Clock, Duration, Effect } from "effect"
import { archiveDue } from "./internal/archiver.ts"
import { decodeDescriptors, decodeTasks, logWarnings } from "./Records.ts"
import type { WorktreesShape } from "./Worktrees.ts"

/** What `pruneSessions` is asked to do. */
export interface PruneOptions {
  /** Sessions not updated for this long are deleted. */
  readonly olderThan: Duration.Input
  /**
   * In the sessions kept, children settled this long ago are archived (as the owner would have;
   * `0` archives every settled child); undefined leaves them alone (`archive_after_minutes = 0`).
   * Children with `cleanup: "delete"` are archived either way.
   */
  readonly archiveAfter?: Duration.Input | undefined
  /** Report what would be freed, change nothing. */
  readonly dryRun?: boolean | undefined
  /** Removes the git worktrees children of deleted sessions kept; without it they are left (and listed). */
  readonly worktrees?: WorktreesShape | undefined
}

/** What `pruneSessions` freed (or, in a dry run, would free). */
export interface PruneSummary {
  readonly dryRun: boolean
  /** Sessions deleted, with the bytes each held. */
  readonly sessions: ReadonlyArray<{ readonly id: string; readonly updatedAt: string; readonly bytes: number }>
  /** Children archived in the sessions kept; `bytes - archivedBytes` is what each freed. */
  readonly children: ReadonlyArray<SessionStore.ArchivedChild & { readonly session: string }>
  /** Sessions left alone, and why (a live owner runs it; its state cannot be read). */
  readonly skipped: ReadonlyArray<{ readonly id: string; readonly reason: string }>
  /** Bytes freed in total. */
  readonly freedBytes: number
  /** Worktrees kept by children of the deleted sessions: removed (with their branches), or why not. */
  readonly worktrees: ReadonlyArray<{ readonly session: string; readonly path: string; readonly branch: string; readonly removed: boolean; readonly reason?: string }>
}

/**
 * Archives the settled children of `session` that are due at `now` (the rule the owner's schedule
 * uses: `cleanup: "delete"`, or `afterMs` since the run ended) and marks them archived in
 * the session's state. Takes the session's lease (fails `Owned` while another process runs it);
 * a dry run only reads. Children recorded as running are `lost` here: nobody runs them.
 */
export const archiveSettledChildren = (
  session: SessionStore.SessionHandle,
  options: { readonly afterMs: number | undefined; readonly now: number; readonly dryRun?: boolean | undefined }
): Effect.Effect<ReadonlyArray<SessionStore.ArchivedChild>, SessionError.SessionError> =>
  Effect.gen(function*() {
    const state = yield* session.readState
    const decoded = decodeDescriptors(state)
    yield* logWarnings(decoded.warnings)
    const tasks = new Map(decodeTasks(yield* session.readTasks).records.map((t) => [t.runId, t]))
    const due = decoded.records
      .map((d) => (d.status === "queued" || d.status === "running" ? { ...d, status: "lost" as const } : d))
      .filter((d) => archiveDue(d, options.now, options.afterMs, d.background !== true || tasks.get(d.runId)?.delivered !== false))
    const archived: Array<SessionStore.ArchivedChild> = []
    for (const d of due) {
      const done = yield* session.archiveChild(d.handle, { dryRun: options.dryRun })
      if (done !== undefined) archived.push(done)
    }
    if (options.dryRun !== true && archived.length > 0) {
      const at = new Date(options.now).toISOString()
      const names = new Set(archived.map((a) => a.name))
      yield* session.updateState((s) => {
        const subagents = { ...(s.subagents as Record<string, Record<string, unknown>>) }
        for (const name of names) if (subagents[name] !== undefined) subagents[name] = { ...subagents[name], archivedAt: at }
        return { ...s, subagents }
      })
    }
    return archived
  })

const describeOwner = (o: { readonly pid: number; readonly host: string }) => `running (pid ${o.pid} on ${o.host})`

/**
 * `dsh sessions prune`: deletes the sessions of the `SessionStore` not updated for `olderThan`,
 * and archives the due children of the others (see `archiveSettledChildren`). A session a live
 * process runs is never touched (it is `skipped`); the lease is held while a session is worked on,
 * so no process can start running it meanwhile. Time comes from `Clock`.
 */
export const pruneSessions = (options: PruneOptions): Effect.Effect<PruneSummary, SessionError.SessionError, SessionStore.SessionStore> =>
  Effect.gen(function*() {
    const store = yield* SessionStore.SessionStore
    const now = yield* Clock.currentTimeMillis
    const dryRun = options.dryRun === true
    const cutoff = now - Duration.toMillis(options.olderThan)
    const afterMs = options.archiveAfter === undefined ? undefined : Duration.toMillis(options.archiveAfter)
    const sessions: Array<PruneSummary["sessions"][number]> = []
    const children: Array<PruneSummary["children"][number]> = []
    const worktrees: Array<PruneSummary["worktrees"][number]> = []
    const skipped: Array<PruneSummary["skipped"][number]> = (yield* store.unreadable).map((u) => ({ id: u.id, reason: `unreadable: ${u.error}` }))

    const one = (state: SessionStore.SessionState) =>
      Effect.gen(function*() {
        const session = yield* store.open(state.id)
        const owner = yield* session.owner
        if (owner !== undefined) return skipped.push({ id: state.id, reason: describeOwner(owner) })
        if (Date.parse(state.updatedAt) <= cutoff) {
          const bytes = yield* session.footprint
          // A kept worktree belongs to its session: it goes with it (a dry run only lists it).
          for (const d of decodeDescriptors(state).records) {
            if (d.worktree === undefined) continue
            const entry = { session: state.id, path: d.worktree.path, branch: d.worktree.branch }
            if (dryRun || options.worktrees === undefined) {
              worktrees.push({ ...entry, removed: false, reason: dryRun ? "dry run" : "no git access here" })
              continue
            }
            const gone = yield* options.worktrees.remove(d.worktree).pipe(Effect.result)
            worktrees.push(gone._tag === "Success" ? { ...entry, removed: true } : { ...entry, removed: false, reason: gone.failure.message })
          }
          if (!dryRun) yield* store.remove(state.id)
          return sessions.push({ id: state.id, updatedAt: state.updatedAt, bytes })
        }
        if (afterMs === undefined && !hasDeleteCleanup(state)) return
        const archived = yield* (dryRun
          ? archiveSettledChildren(session, { afterMs, now, dryRun })
          : Effect.scoped(session.acquire.pipe(Effect.andThen(archiveSettledChildren(session, { afterMs, now }))))
        )
        for (const a of archived) children.push({ ...a, session: state.id })
      }).pipe(
        // Started running meanwhile: left alone, like any session with a live owner.
        Effect.catchIf((e) => e.reason === "Owned", (e) => Effect.sync(() => void skipped.push({ id: state.id, reason: e.detail })))
      )

    for (const state of yield* store.list) yield* one(state)
    const freedBytes = sessions.reduce((n, s) => n + s.bytes, 0) + children.reduce((n, c) => n + Math.max(0, c.bytes - c.archivedBytes), 0)
    return { dryRun, sessions, children, skipped, freedBytes, worktrees }
  })

const hasDeleteCleanup = (state: SessionStore.SessionState): boolean =>
  decodeDescriptors(state).records.some((d) => d.cleanup === "delete" && d.archivedAt === undefined)
