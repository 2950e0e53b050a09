/**
 * A session's state as rows: the document in `dsh_sessions.state` holds every change up to
 * `state_n`, and each later change is one row of `dsh_state_patches` (`n` from `state_n + 1` to
 * `patch_n`), the patch `StoreKit.diffState` makes (one child's record, a status). With thousands
 * of children the document is megabytes: rewriting it per update made a run's writes, WAL and
 * every watcher's reads O(children²). The patches are folded into the document every
 * `FOLD_EVERY` changes and when the session's run ends, so a session at rest is one row.
 * A handle keeps the state it last saw with its `n` and reads only the patches after it.
 */
import { SessionError, type SessionStore, StoreKit } from "@dsh/session"
import { Effect, Exit, Ref } from "effect"
import { type Db, run } from "./Db.ts"
import { CHANNEL, changePayload, type HeardChange, payloadOf, type Seen } from "./watch.ts"

/** Patches kept before the next change folds them into the document. */
const FOLD_EVERY = 256

/** Statuses of a session whose run is over: the change that sets one folds the patches. */
const SETTLED: ReadonlySet<string> = new Set(["completed", "failed", "cancelled"])

interface Row {
  readonly state: unknown
  readonly state_n: string | number
  readonly patch_n: string | number
  readonly patches: unknown
}

/** The patches of one row (a JSON array, in order), `Corrupt` when one is not a patch. */
const patchesOf = (row: { readonly patches: unknown }, id: string, location: string): Effect.Effect<ReadonlyArray<StoreKit.StatePatch>, SessionError.SessionError> => {
  let raw: unknown = row.patches
  if (typeof raw === "string") {
    try {
      raw = JSON.parse(raw)
    } catch {
      raw = undefined
    }
  }
  const list = Array.isArray(raw) ? raw.map(StoreKit.decodeStatePatch) : [undefined]
  return list.every((p) => p !== undefined)
    ? Effect.succeed(list as ReadonlyArray<StoreKit.StatePatch>)
    : Effect.fail(new SessionError.SessionError({ reason: "Corrupt", detail: `${location}: a change of session "${id}" is not a state patch` }))
}

/** A patch as a notification carries it, `undefined` when it is not one. */
const parsePatch = (text: string): StoreKit.StatePatch | undefined => {
  try {
    return StoreKit.decodeStatePatch(JSON.parse(text))
  } catch {
    return undefined
  }
}

/** The patches of the row `s` numbered above `bound` (an SQL expression), as a JSON array. */
const patchesAfter = (bound: string): string =>
  `(SELECT coalesce(json_agg(p.patch ORDER BY p.n), '[]'::json) FROM dsh_state_patches p WHERE p.session_id = s.id AND p.n > ${bound})`

/** A row of `dsh_sessions` (`s`) with the patches after its document: every listing reads this. */
export const SELECT_STATES = `SELECT s.id, s.state, ${patchesAfter("s.state_n")} AS patches FROM dsh_sessions s`

/** A row as `SELECT_STATES` reads it. */
export interface StateRow {
  readonly id: string
  readonly state: unknown
  readonly patches: unknown
}

/** A listed row's state: its document decoded, its patches applied. */
export const stateOfRow = (row: StateRow, location: string): Effect.Effect<SessionStore.SessionState, SessionError.SessionError> =>
  Effect.flatMap(StoreKit.decodeState(row.state, row.id, location), (state) =>
    Effect.map(patchesOf(row, row.id, location), (patches) => StoreKit.applyStatePatches(state, patches)))

/** The columns of the state after change `$2` (-1: none known): the document only when it was folded past it, and the patches after it. */
const STATE_AFTER = `s.state_n, s.patch_n, CASE WHEN s.state_n > $2 THEN s.state END AS state, ${patchesAfter("greatest(s.state_n, $2)")} AS patches`

/**
 * The state a `STATE_AFTER` row gives from `known` on, and whether the row held every patch up to
 * its `patch_n` (a locking read that waited sees the row's newest version, but its patches as of
 * the snapshot it took before waiting).
 */
const seenOfRow = (row: Row, id: string, location: string, known: Seen | undefined): Effect.Effect<Seen & { readonly documentN: number; readonly complete: boolean }, SessionError.SessionError> =>
  Effect.gen(function*() {
    const documentN = Number(row.state_n)
    const n = Number(row.patch_n)
    const base = row.state === null || row.state === undefined ? known!.state : yield* StoreKit.decodeState(row.state, id, location)
    const patches = yield* patchesOf(row, id, location)
    const complete = patches.length === n - Math.max(documentN, known?.n ?? -1)
    return { state: StoreKit.applyStatePatches(base, patches), n, documentN, complete }
  })

/** The state now, from `known` on (one statement, one snapshot). */
const readFrom = (db: Db, id: string, location: string, known: Seen | undefined): Effect.Effect<Seen & { readonly documentN: number }, SessionError.SessionError> =>
  Effect.gen(function*() {
    const rows = yield* db.sql.unsafe<Row>(`SELECT ${STATE_AFTER} FROM dsh_sessions s WHERE s.id = $1`, [id, known?.n ?? -1])
    if (rows.length === 0) return yield* Effect.fail(StoreKit.notFound(id))
    return yield* seenOfRow(rows[0]!, id, location, known)
  }).pipe((effect) => run(db, `reading session "${id}"`, effect))

/** How a handle reads and changes its session's state, with what it last saw kept between calls. */
export const makeStateRows = (db: Db, id: string, location: string) =>
  Effect.gen(function*() {
    const seen = yield* Ref.make<Seen | undefined>(undefined)
    /** Keeps the newest of what was seen (reads may finish out of order). */
    const remember = (next: Seen) => Ref.update(seen, (known) => (known === undefined || next.n >= known.n ? next : known))

    /** The state now and its change number (what a watcher compares). */
    const readSeen: Effect.Effect<Seen, SessionError.SessionError> = Ref.get(seen).pipe(
      Effect.flatMap((known) => readFrom(db, id, location, known)),
      Effect.map(({ state, n }) => ({ state, n })),
      Effect.tap(remember)
    )
    const read = Effect.map(readSeen, (s) => s.state)

    /**
     * Applies `updates` in order in one transaction that holds the row (each caller gets the
     * state its own update made; a defect fails that caller alone), writes one patch, or the
     * document when due, and notifies watchers on commit.
     */
    const update = (updates: ReadonlyArray<(state: SessionStore.SessionState) => SessionStore.SessionState>) =>
      run(db, `updating session "${id}"`, db.sql.withTransaction(Effect.gen(function*() {
        // The row locked and what changed since this handle's last look read in one statement
        // (the usual case for a session's one writer: nothing); when the lock had to wait, the
        // patches of the transaction it waited for are missing and are read once more.
        const known = yield* Ref.get(seen)
        const locked = yield* db.sql.unsafe<Row>(`SELECT ${STATE_AFTER} FROM dsh_sessions s WHERE s.id = $1 FOR NO KEY UPDATE`, [id, known?.n ?? -1])
        if (locked.length === 0) return yield* Effect.fail(StoreKit.notFound(id))
        const row = yield* seenOfRow(locked[0]!, id, location, known)
        const before = row.complete ? row : yield* readFrom(db, id, location, known)
        let state = before.state
        const exits: Array<Exit.Exit<SessionStore.SessionState>> = []
        for (const f of updates) {
          const updatedAt = yield* StoreKit.nowIso
          const next = Exit.map(yield* Effect.exit(Effect.sync(() => f(state))), (s): SessionStore.SessionState => ({ ...s, updatedAt }))
          if (Exit.isSuccess(next)) state = next.value
          exits.push(next)
        }
        const patch = StoreKit.diffState(before.state, state)
        if (patch === undefined) return { exits, seen: { state, n: before.n } }
        const n = before.n + 1
        const fold = n - before.documentN >= FOLD_EVERY || (SETTLED.has(state.status) && !SETTLED.has(before.state.status))
        if (fold) {
          yield* db.sql`DELETE FROM dsh_state_patches WHERE session_id = ${id}`
          yield* db.sql`WITH written AS (
              UPDATE dsh_sessions SET state = ${JSON.stringify(state)}::jsonb, state_n = ${n}, patch_n = ${n}, updated_at = ${state.updatedAt}::timestamptz
              WHERE id = ${id} RETURNING id)
            SELECT pg_notify(${CHANNEL}, ${payloadOf(db, id)}) FROM written`
        } else {
          // The patch rides in the notification: a watcher that saw change n - 1 applies it without a read.
          const patchJson = JSON.stringify(patch)
          yield* db.sql`WITH added AS (
              INSERT INTO dsh_state_patches (session_id, n, patch) VALUES (${id}, ${n}, ${patchJson}::json) RETURNING session_id),
            written AS (
              UPDATE dsh_sessions SET patch_n = ${n}, updated_at = ${state.updatedAt}::timestamptz WHERE id = ${id} AND EXISTS (SELECT 1 FROM added) RETURNING id)
            SELECT pg_notify(${CHANNEL}, ${changePayload(db, id, n, patchJson)}) FROM written`
        }
        return { exits, seen: { state, n } }
      }))).pipe(
        Effect.tap((done) => remember(done.seen)),
        // A failed transaction leaves what this handle saw in doubt: the next call reads the document.
        Effect.tapError(() => Ref.set(seen, undefined)),
        Effect.map((done) => done.exits)
      )

    /**
     * The state after a change heard with its patch, without a read: applied when this handle saw
     * the change before it, the state it has when it already saw that one (or a later one), and
     * `undefined` when it cannot tell (nothing seen, a change missed, a patch not understood).
     */
    const advance = (change: HeardChange): Effect.Effect<Seen | undefined> =>
      Ref.modify(seen, (known): [Seen | undefined, Seen | undefined] => {
        if (known === undefined) return [undefined, known]
        if (known.n >= change.n) return [known, known]
        if (known.n !== change.n - 1) return [undefined, known]
        const patch = parsePatch(change.patch)
        if (patch === undefined) return [undefined, known]
        const next = { state: StoreKit.applyStatePatches(known.state, [patch]), n: change.n }
        return [next, next]
      })

    return { read, readSeen, update, advance }
  })
