/**
 * One session as a `SessionHandle` over the store's tables. `updateState` is one transaction that
 * locks the session's row (`SELECT … FOR NO KEY UPDATE`), so read-modify-writes from any number of
 * processes queue up instead of losing updates; it notifies watchers on commit. Within a process
 * concurrent updates are committed together (group commit: one transaction, one write, one
 * notification for every update queued meanwhile), without holding pool connections while waiting.
 * The session's writes first check that a lease this process took was not lost (`lease.ts`).
 */
import { type SessionError, type SessionStore, StoreKit } from "@dsh/session"
import { Deferred, Effect, Exit, type Scope } from "effect"
import * as Archive from "./archive.ts"
import { type Db, run } from "./Db.ts"
import { type Lease, makeLease } from "./lease.ts"
import type { EventWriter } from "./eventWriter.ts"
import { makePgTranscript, type PgTranscript } from "./transcript.ts"
import { makeStateRows, SELECT_STATES, type StateRow, stateOfRow } from "./state.ts"
import type { StateHub } from "./watch.ts"

interface QueuedUpdate {
  readonly f: (state: SessionStore.SessionState) => SessionStore.SessionState
  readonly done: Deferred.Deferred<SessionStore.SessionState, SessionError.SessionError>
}

/** `postgres://user@host:port/db#<session>` (and `…#<session>/<child>`): where a session lives, for display. */
export const locationOf = (db: Db, sessionId: string, child?: string): string =>
  `${db.target}#${sessionId}${child === undefined ? "" : `/${child}`}`

/** Reads and validates a session's state: `NotFound` without a row, `Corrupt` when it is not a state. */
export const readStateRow = (db: Db, id: string): Effect.Effect<SessionStore.SessionState, SessionError.SessionError> =>
  run(db, `reading session "${id}"`, db.sql.unsafe<StateRow>(`${SELECT_STATES} WHERE s.id = $1`, [id])).pipe(
    Effect.flatMap((found) => (found.length === 0 ? Effect.fail(StoreKit.notFound(id)) : stateOfRow(found[0]!, locationOf(db, id))))
  )

/** `transcript` whose appends fail once the lease this process took is lost. */
const leased = (lease: Lease, transcript: PgTranscript): PgTranscript => ({
  ...transcript,
  append: (event) => Effect.andThen(lease.intact, transcript.append(event))
})

const makeChildStore = (db: Db, events: EventWriter, lease: Lease, sessionId: string, name: string): Effect.Effect<SessionStore.ChildStore & { readonly transcript: PgTranscript }, SessionError.SessionError> =>
  Effect.gen(function*() {
    const location = locationOf(db, sessionId, name)
    // Registered at once, as the file store makes its directory: `children` lists it from now on.
    yield* run(
      db,
      `creating ${location}`,
      db.sql`INSERT INTO dsh_children (session_id, name) VALUES (${sessionId}, ${name}) ON CONFLICT DO NOTHING`
    )
    return {
      name,
      location,
      transcript: leased(lease, yield* makePgTranscript(db, events, sessionId, name, location)),
      readMeta: run(
        db,
        `reading ${location}`,
        db.sql<{ readonly meta: unknown }>`SELECT meta FROM dsh_children WHERE session_id = ${sessionId} AND name = ${name}`
      ).pipe(Effect.map((rows) => rows[0]?.meta ?? undefined)),
      writeMeta: (meta) =>
        Effect.andThen(lease.intact, run(
          db,
          `writing ${location}`,
          db.sql`INSERT INTO dsh_children (session_id, name, meta) VALUES (${sessionId}, ${name}, ${JSON.stringify(meta ?? null)}::jsonb)
            ON CONFLICT (session_id, name) DO UPDATE SET meta = EXCLUDED.meta`
        ))
    } satisfies SessionStore.ChildStore
  })

/** A session's background task records, one row per run. */
const taskRecords = (db: Db, lease: Lease, id: string) => {
  const writeTask = (runId: string, record: unknown) =>
    StoreKit.checkId("run id", runId).pipe(Effect.andThen(lease.intact), Effect.andThen(run(
      db,
      `writing task ${runId} of session "${id}"`,
      db.sql`INSERT INTO dsh_tasks (session_id, run_id, record) VALUES (${id}, ${runId}, ${JSON.stringify(record ?? null)}::jsonb)
        ON CONFLICT (session_id, run_id) DO UPDATE SET record = EXCLUDED.record`
    )))

  const readTasks = run(
    db,
    `reading the tasks of session "${id}"`,
    db.sql<{ readonly run_id: string; readonly record: unknown }>`SELECT run_id, record FROM dsh_tasks WHERE session_id = ${id}`
  ).pipe(Effect.map((rows) => [...rows].sort((a, b) => (a.run_id < b.run_id ? -1 : a.run_id > b.run_id ? 1 : 0)).map((r) => r.record)))

  const readTask = (runId: string) =>
    StoreKit.checkId("run id", runId).pipe(Effect.andThen(run(
      db,
      `reading task ${runId} of session "${id}"`,
      db.sql<{ readonly record: unknown }>`SELECT record FROM dsh_tasks WHERE session_id = ${id} AND run_id = ${runId}`
    )), Effect.map((rows) => rows[0]?.record ?? undefined))
  return { writeTask, readTasks, readTask }
}

/**
 * Builds the handle of an existing session; `storeScope` outlives any lease it hands out. `letGo`
 * (for the store's `release`) refuses while this process holds the lease; otherwise the handle
 * keeps nothing open (its rows are in the database, its watchers are their subscribers'), so it
 * can simply be forgotten.
 */
export const makePgSessionHandle = (
  db: Db,
  id: string,
  hub: StateHub,
  storeScope: Scope.Scope,
  events: EventWriter
): Effect.Effect<{ readonly handle: SessionStore.SessionHandle; readonly letGo: Effect.Effect<boolean> }> =>
  Effect.gen(function*() {
    const location = locationOf(db, id)
    const rounds = StoreKit.makeRounds()
    const lease = yield* makeLease(db, id, storeScope)
    // One ChildStore per name, so every user of a child shares its transcript's numbering.
    const children = new Map<string, SessionStore.ChildStore & { readonly transcript: PgTranscript }>()
    const rows = yield* makeStateRows(db, id, location)
    const readState = rows.read

    /** Updates asked for and not yet committed: whoever runs the next round commits all of them at once. */
    let queued: Array<QueuedUpdate> = []

    /**
     * Group commit: one transaction (`StateRows.update`) applies every queued update in order and
     * writes once. Under load (a parent admitting dozens of children at once) that is one commit
     * for the lot instead of one each, while updates from other processes queue up on the row lock.
     */
    const commit = (batch: ReadonlyArray<QueuedUpdate>) =>
      rows.update(batch.map((u) => u.f)).pipe(
        Effect.exit,
        Effect.flatMap((exit) =>
          Effect.forEach(batch, (update, i) =>
            Deferred.done(update.done, Exit.isSuccess(exit) ? exit.value[i]! : exit as Exit.Exit<never, SessionError.SessionError>))
        ),
        Effect.uninterruptible
      )

    const updateState = (f: (state: SessionStore.SessionState) => SessionStore.SessionState) =>
      Effect.gen(function*() {
        yield* lease.intact
        const mine: QueuedUpdate = { f, done: yield* Deferred.make<SessionStore.SessionState, SessionError.SessionError>() }
        queued.push(mine)
        yield* rounds.unlessDone(() => Deferred.isDoneUnsafe(mine.done), Effect.suspend(() => (queued.length === 0 ? Effect.void : commit(queued.splice(0))))).pipe(
          // Given up before any batch took it: it is not applied.
          Effect.onInterrupt(() => Effect.sync(() => (queued = queued.filter((u) => u !== mine))))
        )
        return yield* Deferred.await(mine.done)
      })

    const child = (name: string) =>
      StoreKit.checkId("child name", name).pipe(Effect.andThen(Effect.suspend(() => {
        const known = children.get(name)
        if (known !== undefined) return Effect.succeed(known)
        return makeChildStore(db, events, lease, id, name).pipe(Effect.map((made) => {
          // Another fiber may have built the same child meanwhile: keep the first one.
          const first = children.get(name) ?? made
          children.set(name, first)
          return first
        }))
      })))

    const listChildren = run(
      db,
      `listing the children of session "${id}"`,
      db.sql<{ readonly name: string }>`SELECT name FROM dsh_children WHERE session_id = ${id}`
    ).pipe(Effect.map((rows) => rows.map((r) => r.name).sort()))

    const { writeTask, readTasks, readTask } = taskRecords(db, lease, id)

    /** Archiving is the owner's: the lease is taken for the call (shared when this handle holds it). */
    const archiveChild: SessionStore.SessionHandle["archiveChild"] = (name, options) =>
      StoreKit.checkId("child name", name).pipe(Effect.andThen(
        options?.dryRun === true
          ? Archive.archiveChild(db, id, name, true)
          : Effect.scoped(lease.acquire.pipe(Effect.andThen(Archive.archiveChild(db, id, name, false)))).pipe(
            // This process's transcript of the child numbers from the archive again on its next append.
            Effect.tap(() => children.get(name)?.transcript.forget ?? Effect.void)
          )
      ))

    const restoreChild: SessionStore.SessionHandle["restoreChild"] = (name) =>
      StoreKit.checkId("child name", name).pipe(Effect.andThen(
        Effect.scoped(lease.acquire.pipe(Effect.andThen(Archive.restoreChild(db, id, name)))).pipe(
          Effect.tap(() => children.get(name)?.transcript.forget ?? Effect.void)
        )
      ))

    const handle = {
      id,
      location,
      transcript: leased(lease, yield* makePgTranscript(db, events, id, "", location)),
      readState,
      updateState,
      watchState: hub.watch(id, rows),
      acquire: lease.acquire,
      owner: lease.owner,
      child,
      children: listChildren,
      writeTask,
      readTasks,
      readTask,
      archiveChild,
      restoreChild,
      archivedChildren: Archive.archivedChildren(db, id),
      footprint: Archive.footprint(db, id)
    } satisfies SessionStore.SessionHandle
    return { handle, letGo: Effect.map(lease.held, (held) => !held) }
  })
