import { type Duration, Effect, Layer, Schedule } from "effect"
import { SqlClient } from "effect/sql"
import { createConnection } from "node:net"
import type { RunnerAddressInput } from "./ClusterLayers.ts"

// Effect Cluster's runner health check runs as a cluster singleton. When the runner hosting it is
// the one that dies, nobody marks the dead runner unhealthy: its shards stay assigned to it until
// its `cluster_runners` row is older than `shardLockExpiration` (35 s), which was the 20–34 s
// stall after a kill in about a third of the runs. So every runner also looks at the others'
// addresses itself. Only a refused connection counts (the port is closed: the process is gone);
// a timeout says nothing, as a busy runner answers late, and stays with Effect Cluster's ping.

/** Whether a TCP connection to host:port is refused (false when it connects or times out). */
const refused = (host: string, port: number, timeoutMs: number): Effect.Effect<boolean> =>
  Effect.callback<boolean>((resume) => {
    const socket = createConnection({ host, port })
    const done = (result: boolean) => {
      socket.destroy()
      resume(Effect.succeed(result))
    }
    socket.setTimeout(timeoutMs, () => done(false))
    socket.once("connect", () => done(false))
    socket.once("error", (e: NodeJS.ErrnoException) => done(e.code === "ECONNREFUSED"))
    return Effect.sync(() => socket.destroy())
  })

/** `host:port` as Effect Cluster stores a runner's address; the port is after the last colon. */
const parseAddress = (address: string): RunnerAddressInput | undefined => {
  const at = address.lastIndexOf(":")
  const port = Number(address.slice(at + 1))
  return at <= 0 || !Number.isInteger(port) ? undefined : { host: address.slice(0, at), port }
}

/** One look: every other runner registered healthy whose port refuses is marked unhealthy. */
const look = (self: string, timeoutMs: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ readonly address: string }>`SELECT address FROM cluster_runners WHERE healthy AND address <> ${self}`
    yield* Effect.forEach(rows, ({ address }) => {
      const parsed = parseAddress(address)
      if (parsed === undefined) return Effect.void
      return refused(parsed.host, parsed.port, timeoutMs).pipe(
        Effect.flatMap((gone) =>
          gone
            ? sql`UPDATE cluster_runners SET healthy = false WHERE address = ${address}`.pipe(
              Effect.andThen(Effect.logDebug("dead runner marked unhealthy", address))
            )
            : Effect.void
        )
      )
    }, { concurrency: "unbounded", discard: true })
  }).pipe(
    // No table yet, or the database is away for a moment: the next look tries again.
    Effect.catchCause(() => Effect.void)
  )

/**
 * A runner's watch over the other runners (see above): every `interval` (default 1 s) one read of
 * `cluster_runners` and one connection attempt per other runner. `self` is this runner's
 * advertised address, never marked.
 */
export const deadRunnerWatchLayer = (options: { readonly self: RunnerAddressInput; readonly interval?: Duration.Input | undefined }) =>
  Layer.effectDiscard(
    look(`${options.self.host}:${options.self.port}`, 1_000).pipe(
      Effect.repeat(Schedule.spaced(options.interval ?? "1 second")),
      Effect.forkScoped
    )
  )
