import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Queue } from "effect"
import { Sharding } from "effect/cluster"

const CHANNEL = "dsh_cluster_messages"

/**
 * Wakes a runner's storage read when a message is stored, by PostgreSQL's LISTEN/NOTIFY, instead
 * of waiting for its next poll (`entityMessagePollInterval`, 10 s). A message a parent could not
 * hand to its runner directly (the runner just died, or the parent's view of the shards is not
 * yet refreshed) is read by the shard's new owner at once rather than up to a poll later: that
 * wait was most of the pause after a runner is killed. A statement-level trigger on Effect
 * Cluster's `cluster_messages` sends one notification per INSERT statement; each runner's
 * `Sharding.pollStorage` coalesces bursts (a wake during a read means one more read).
 */
export const storageWakeLayer = Layer.effectDiscard(Effect.gen(function*() {
  const sql = yield* PgClient.PgClient
  const sharding = yield* Sharding.Sharding
  yield* sql.withTransaction(Effect.gen(function*() {
    // Runners starting at once install it once.
    yield* sql`SELECT pg_advisory_xact_lock(hashtext(${CHANNEL}))`
    yield* sql.unsafe(`CREATE OR REPLACE FUNCTION dsh_cluster_messages_notify() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_notify('${CHANNEL}', ''); RETURN NULL; END $$`)
    yield* sql.unsafe(`CREATE OR REPLACE TRIGGER dsh_cluster_messages_notify AFTER INSERT ON cluster_messages
      FOR EACH STATEMENT EXECUTE FUNCTION dsh_cluster_messages_notify()`)
  }))
  const stored = yield* sql.listen(CHANNEL)
  yield* Effect.forkScoped(Effect.forever(Queue.take(stored).pipe(Effect.andThen(sharding.pollStorage))).pipe(
    Effect.ignore({ log: "Warn", message: "the runner no longer hears new messages; it reads them at its next poll" })
  ))
}))
