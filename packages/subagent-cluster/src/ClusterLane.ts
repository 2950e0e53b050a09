import { Lane, type LaneShape, SubagentLimits } from "@dsh/subagent"
import { PgClient } from "@effect/sql-pg"
import { Deferred, Duration, Effect, Latch, Layer, Queue } from "effect"
import type { SqlError } from "effect/sql/SqlError"
import { hostname } from "node:os"

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
 * The lane, shared by every process of a cluster through PostgreSQL: a slot is a row claimed
 * with `FOR UPDATE SKIP LOCKED`, kept by a heartbeat and freed on release; a release notifies
 * the waiters (`LISTEN`/`NOTIFY`). A holder that dies stops its heartbeat and its slot is free
 * again after the lease; waiters also look again once per lease/3, which is what frees them
 * when the only news is such an expiry. Within a process, waiters queue in order: one statement
 * claims slots for all of them, and a slot released while another waits here is handed over in
 * memory (the row stays this process's, its heartbeat goes on), so a busy lane costs no round
 * trip per child beyond its first claim.
 */
export const makeClusterLane = (options: ClusterLaneOptions = {}) =>
  Effect.gen(function*() {
    const sql = yield* PgClient.PgClient
    const limits = yield* SubagentLimits
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

    interface Held {
      readonly slot: number
      readonly holder: string
    }
    interface Waiter {
      readonly got: Deferred.Deferred<Held, SqlError>
    }
    // This process's waiters, first come first served. One claimer claims for all of them with
    // one statement, and a slot released here goes straight to the next one (no round trip, no
    // other process woken for it): with many children queued, a slot changes hands in memory.
    const waiters: Array<Waiter> = []
    const poke = Latch.makeUnsafe(false)

    // Every release anywhere (with no waiter left in its process) pokes the claimer here.
    const notifications = yield* sql.listen(CHANNEL)
    yield* Effect.forkScoped(Effect.forever(Effect.gen(function*() {
      const n = yield* Queue.take(notifications)
      if (n.payload === name) poke.openUnsafe()
    })).pipe(Effect.ignore({ log: "Warn", message: "the lane no longer hears releases; waiters look again every few seconds" })))

    let serial = 0
    /** Claims up to `count` free slots in one statement, each under a holder of its own. */
    const claim = (count: number) => {
      const prefix = `${hostname()}:${process.pid}:${++serial}`
      return sql<{ slot: number; holder: string }>`
        WITH free AS (
          SELECT slot FROM dsh_lane_slots
          WHERE lane = ${name} AND slot < ${slots} AND (holder IS NULL OR expires_at < now())
          ORDER BY slot LIMIT ${count} FOR UPDATE SKIP LOCKED)
        UPDATE dsh_lane_slots s SET holder = ${prefix} || ':' || s.slot::text, expires_at = now() + make_interval(secs => ${leaseSeconds})
        FROM free WHERE s.lane = ${name} AND s.slot = free.slot
        RETURNING s.slot, s.holder`
    }

    /** Hands a held slot to the first waiter; `false` when none is left. */
    const give = (held: Held): boolean => {
      while (waiters.length > 0) {
        if (Deferred.doneUnsafe(waiters.shift()!.got, Effect.succeed(held))) return true
      }
      return false
    }

    // The claimer: wakes on a new waiter or a release elsewhere, else once per lease/3 (a
    // dead holder's slot frees only by expiry, which nobody announces).
    yield* Effect.forkScoped(Effect.forever(Effect.gen(function*() {
      yield* (waiters.length === 0 ? poke.await : poke.await.pipe(Effect.timeoutOption(beat)))
      poke.closeUnsafe()
      if (waiters.length === 0) return
      const claimed = yield* Effect.result(claim(waiters.length))
      if (claimed._tag === "Failure") {
        for (const w of waiters.splice(0)) Deferred.doneUnsafe(w.got, Effect.fail(claimed.failure))
        return
      }
      for (const held of claimed.success) {
        // More slots than waiters (one was interrupted meanwhile): back to the table.
        if (!give(held)) yield* release(held)
      }
    })))

    /** Claims a slot; claims are never cut short (no slot is left claimed by nobody), waiting is. */
    const acquire = (onQueued: Effect.Effect<void>, restore: <A, E, R>(e: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>) =>
      Effect.gen(function*() {
        // Nobody queued here: try for a slot at once.
        if (waiters.length === 0) {
          const first = (yield* claim(1))[0]
          if (first !== undefined) return first
        }
        const mine: Waiter = { got: Deferred.makeUnsafe<Held, SqlError>() }
        waiters.push(mine)
        poke.openUnsafe()
        yield* restore(onQueued)
        return yield* restore(Deferred.await(mine.got)).pipe(
          Effect.onInterrupt(() =>
            Effect.suspend(() => {
              const at = waiters.indexOf(mine)
              if (at >= 0) waiters.splice(at, 1)
              // Given a slot just as it gave up: pass it on.
              return Deferred.await(mine.got).pipe(
                Effect.flatMap((held) => (give(held) ? Effect.void : release(held))),
                Effect.when(Deferred.isDone(mine.got)),
                Effect.ignore
              )
            })
          )
        )
      })

    /** Frees the slot and tells the other processes, in one statement. */
    const releaseRow = (held: Held) =>
      sql`WITH freed AS (
            UPDATE dsh_lane_slots SET holder = NULL, expires_at = NULL
            WHERE lane = ${name} AND slot = ${held.slot} AND holder = ${held.holder} RETURNING slot)
          SELECT pg_notify(${CHANNEL}, ${name}) FROM freed`.pipe(
        Effect.ignore({ log: "Warn", message: "could not release a lane slot; it frees itself when its lease ends" })
      )
    function release(held: Held): Effect.Effect<void> {
      return Effect.suspend(() => (give(held) ? Effect.void : releaseRow(held)))
    }

    // The claim (or the last beat) set the lease; the first beat comes one interval later.
    const heartbeat = (held: Held) =>
      sql`UPDATE dsh_lane_slots SET expires_at = now() + make_interval(secs => ${leaseSeconds})
          WHERE lane = ${name} AND slot = ${held.slot} AND holder = ${held.holder}`.pipe(
        Effect.ignore({ log: "Warn", message: "a lane heartbeat failed" }),
        Effect.delay(beat),
        Effect.forever
      )

    const lane: LaneShape = {
      withSlot: (effect, onQueued) =>
        Effect.uninterruptibleMask((restore) =>
          Effect.gen(function*() {
            const held = yield* acquire(onQueued, restore).pipe(Effect.orDie)
            return yield* restore(Effect.scoped(Effect.forkScoped(heartbeat(held)).pipe(Effect.andThen(effect)))).pipe(
              Effect.ensuring(release(held))
            )
          })
        )
    }
    return lane
  })

/** The `Lane` service backed by PostgreSQL (needs a `PgClient`): `max_concurrent` across the cluster. */
export const clusterLaneLayer = (options: ClusterLaneOptions = {}) => Layer.effect(Lane, makeClusterLane(options))
