import { Lane, Limits } from "@dsh/subagent"
import { PgClient } from "@effect/sql-pg"
import { Deferred, Duration, Effect, Layer, Queue, Ref } from "effect"
import { hostname } from "node:os"
import { makeTurn } from "./internal/turn.ts"

export interface ClusterLaneOptions {
  /** The lane's name: processes that name the same lane share its slots. Default `default`. */
  readonly name?: string | undefined
  /** Slots of the lane. Default: `SubagentLimits.maxConcurrent` of the context. */
  readonly slots?: number | undefined
  /** How long a slot stays held without a heartbeat from its holder (a holder that died). Default 15 s. */
  readonly lease?: Duration.Input | undefined
}

const CHANNEL = "dsh_lane"

/**
 * Claims the lowest free slot for `holder`, and counts the free slots as the statement's snapshot
 * saw them (before its own claim): `slot` is null when none was free.
 */
const claimStatement = (sql: PgClient.PgClient, name: string, slots: number, leaseSeconds: number, holder: string) =>
  sql<{ slot: number | null; free: number }>`
    WITH free AS (
      SELECT slot FROM dsh_lane_slots
      WHERE lane = ${name} AND slot < ${slots} AND (holder IS NULL OR expires_at < now())
      ORDER BY slot LIMIT 1 FOR UPDATE SKIP LOCKED),
    claimed AS (
      UPDATE dsh_lane_slots s SET holder = ${holder}, expires_at = now() + make_interval(secs => ${leaseSeconds})
      FROM free WHERE s.lane = ${name} AND s.slot = free.slot
      RETURNING s.slot)
    SELECT (SELECT slot FROM claimed) AS slot,
      (SELECT count(*)::int FROM dsh_lane_slots WHERE lane = ${name} AND slot < ${slots} AND (holder IS NULL OR expires_at < now())) AS free`

/** Renews a held slot every `beat`, the first time one `beat` after the claim (which set the lease). */
const heartbeat = (sql: PgClient.PgClient, name: string, leaseSeconds: number, beat: Duration.Duration, held: { readonly slot: number; readonly holder: string }) =>
  Effect.sleep(beat).pipe(
    Effect.andThen(sql`UPDATE dsh_lane_slots SET expires_at = now() + make_interval(secs => ${leaseSeconds})
      WHERE lane = ${name} AND slot = ${held.slot} AND holder = ${held.holder}`),
    Effect.ignore({ log: "Warn", message: "a lane heartbeat failed" }),
    Effect.forever
  )

/**
 * The lane, shared by every process of a cluster through PostgreSQL: a slot is a row claimed
 * with `FOR UPDATE SKIP LOCKED`, kept by a heartbeat and freed on release; a release notifies
 * the waiters (`LISTEN`/`NOTIFY`). A holder that dies stops its heartbeat and its slot is free
 * again after the lease; waiters also look again once per lease/3, which is what frees them
 * when the only news is such an expiry.
 */
export const make = (options: ClusterLaneOptions = {}) =>
  Effect.gen(function*() {
    const sql = yield* PgClient.PgClient
    const limits = yield* Limits.SubagentLimits
    const name = options.name ?? "default"
    const slots = Math.max(1, Math.floor(options.slots ?? limits.maxConcurrent))
    const lease = Duration.fromInputUnsafe(options.lease ?? "15 seconds")
    const leaseSeconds = Math.max(1, Math.ceil(Duration.toSeconds(lease)))
    const beat = Duration.millis(Math.max(200, Duration.toMillis(lease) / 3))

    yield* sql.withTransaction(Effect.gen(function*() {
      // Processes starting at once create the table once.
      yield* sql`SELECT pg_advisory_xact_lock(hashtext('dsh_lane_slots'))`
      yield* sql`CREATE TABLE IF NOT EXISTS dsh_lane_slots (
        lane text NOT NULL, slot integer NOT NULL, holder text, expires_at timestamptz,
        PRIMARY KEY (lane, slot))`
      yield* sql`INSERT INTO dsh_lane_slots (lane, slot)
        SELECT ${name}, g FROM generate_series(0, ${slots - 1}) AS g ON CONFLICT DO NOTHING`
    }))

    // Every release anywhere wakes the waiters here, who then try again.
    let changed = yield* Deferred.make<void>()
    const notifications = yield* sql.listen(CHANNEL)
    yield* Effect.forkScoped(Effect.forever(Effect.gen(function*() {
      const n = yield* Queue.take(notifications)
      if (n.payload !== name) return
      const wake = changed
      changed = yield* Deferred.make<void>()
      yield* Deferred.succeed(wake, undefined)
    })).pipe(Effect.ignore({ log: "Warn", message: "the lane no longer hears releases; waiters look again every few seconds" })))

    let serial = 0
    /**
     * The wake-up (`changed`) current when a claim last found the lane full: until the next
     * release is heard, a claim here would fail, so none is sent (a lease that ran out is
     * looked for after `beat`). Without it each child queued on a full lane cost a failed claim.
     */
    let fullSince: Deferred.Deferred<void> | undefined
    /** Claims sent and not answered: a newcomer queues behind one (a burst of children would otherwise send a claim each, most failing). */
    let claiming = 0
    const claim = (holder: string) =>
      Effect.suspend(() => {
        const seenAt = changed
        claiming += 1
        return claimStatement(sql, name, slots, leaseSeconds, holder).pipe(
          Effect.ensuring(Effect.sync(() => void (claiming -= 1))),
          Effect.map((rows) => {
            const slot = rows[0]?.slot ?? undefined
            if (slot === undefined || (rows[0]?.free ?? 0) <= 1) fullSince = seenAt
            else if (fullSince === seenAt) fullSince = undefined
            return slot
          })
        )
      })

    /**
     * One waiter of this process at a time looks again (the others queue behind it, first come
     * first served): a release then costs this process one claim, not one per waiter. Every
     * release anywhere wakes every process's looking waiter, and 1,000 children queued on 64
     * slots had made 51 lane statements per child.
     */
    const turn = makeTurn()
    /** Waiters of this process queued for a slot: while there are any, a newcomer queues behind them. */
    const waiting = yield* Ref.make(0)

    /** Claims a slot; claims are never cut short (no slot is left claimed by nobody), waiting is. */
    const acquire = (onQueued: Effect.Effect<void>, restore: <A, E, R>(e: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>) =>
      Effect.gen(function*() {
        const holder = `${hostname()}:${process.pid}:${++serial}`
        const queueFirst = (yield* Ref.get(waiting)) > 0 || claiming > 0 || fullSince === changed
        const first = queueFirst ? undefined : yield* claim(holder)
        if (first !== undefined) return { slot: first, holder }
        yield* Ref.update(waiting, (n) => n + 1)
        return yield* Effect.gen(function*() {
          yield* restore(onQueued)
          yield* restore(turn.take)
          return yield* Effect.gen(function*() {
            while (true) {
              const wake = changed
              if (fullSince !== wake) {
                const slot = yield* claim(holder)
                if (slot !== undefined) return { slot, holder }
              }
              const woke = yield* restore(Deferred.await(wake).pipe(Effect.timeoutOption(beat)))
              // No release heard for a beat: a holder that died may have left a slot whose lease ran out.
              if (woke._tag === "None") fullSince = undefined
            }
          }).pipe(Effect.ensuring(turn.release))
        }).pipe(Effect.ensuring(Ref.update(waiting, (n) => n - 1)))
      })

    const release = (held: { readonly slot: number; readonly holder: string }) =>
      // Freed and announced in one statement (one round trip).
      sql`WITH freed AS (
            UPDATE dsh_lane_slots SET holder = NULL, expires_at = NULL
            WHERE lane = ${name} AND slot = ${held.slot} AND holder = ${held.holder} RETURNING slot)
          SELECT pg_notify(${CHANNEL}, ${name}) FROM freed`.pipe(
        Effect.ignore({ log: "Warn", message: "could not release a lane slot; it frees itself when its lease ends" })
      )

    const lane: Lane.LaneShape = {
      withSlot: (effect, onQueued) =>
        Effect.uninterruptibleMask((restore) =>
          Effect.gen(function*() {
            const held = yield* acquire(onQueued, restore).pipe(Effect.orDie)
            return yield* restore(Effect.scoped(Effect.forkScoped(heartbeat(sql, name, leaseSeconds, beat, held)).pipe(Effect.andThen(effect)))).pipe(
              Effect.ensuring(release(held))
            )
          })
        )
    }
    return lane
  })

/** The `Lane` service backed by PostgreSQL (needs a `PgClient`): `max_concurrent` across the cluster. */
export const layer = (options: ClusterLaneOptions = {}) => Layer.effect(Lane.Lane, make(options))
