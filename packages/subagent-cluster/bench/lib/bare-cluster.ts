// Effect Cluster with nothing of dsh's on top: the floor `thousand-children.ts` compares against.
// One entity with one persisted RPC whose handler answers at once, on the same sharding settings,
// SQL storage, dead-runner watch and PostgreSQL pool configuration as dsh's runners
// (`clusterRunnerLayer`, `deadRunnerWatchLayer`, `PgSessionStore.clientConfig`), with a payload
// the size of a dsh child's `Run`.
//
//   node --conditions=@dsh/source bare-cluster.ts runner <url> <port>
//   node --conditions=@dsh/source bare-cluster.ts client <url> <count> <concurrency>
//
// The client prints `replied <n>` every 50 replies and `done <ms>` at the end.
import { NodeRuntime } from "@effect/platform-node"
import { PgSessionStore } from "@dsh/session-pg"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Schema } from "effect"
import { ClusterSchema, Entity } from "effect/cluster"
import { Rpc } from "effect/rpc"
import { clusterClientLayer, clusterRunnerLayer } from "../../src/ClusterLayers.ts"
import { deadRunnerWatchLayer } from "../../src/DeadRunnerWatch.ts"

const Run = Rpc.make("Run", {
  payload: { runId: Schema.String, body: Schema.String },
  success: Schema.String,
  primaryKey: (p) => p.runId
}).annotate(ClusterSchema.Persisted, true)

const Echo = Entity.make("bench/Echo", [Run])

const EchoLive = Echo.toLayer(Effect.succeed(Echo.of({ Run: ({ payload }) => Effect.succeed(payload.runId) })))

const [mode, url = "", third = "", fourth = ""] = process.argv.slice(2)

const pg = Layer.unwrap(Effect.map(
  PgSessionStore.clientConfig({ url }),
  (config) => PgClient.layer({ ...config, applicationName: "dsh-bench-bare" })
))

// About what a dsh child's `Run` carries: two agent definitions, the prompt, the parent's settings.
const BODY = "x".repeat(2048)

const client = (count: number, concurrency: number) =>
  Effect.gen(function*() {
    const clientFor = yield* Echo.client
    const started = performance.now()
    let replied = 0
    yield* Effect.forEach(
      Array.from({ length: count }, (_, i) => i),
      (i) =>
        clientFor(`bench-session/child-${i}`).Run({ runId: `run-${i}`, body: BODY }).pipe(
          Effect.tap(() => Effect.sync(() => {
            replied++
            if (replied % 50 === 0) console.log(`replied ${replied}`)
          }))
        ),
      { concurrency, discard: true }
    )
    console.log(`done ${Math.round(performance.now() - started)}`)
  })

if (mode === "runner") {
  const port = Number(third)
  const listen = { host: "127.0.0.1", port }
  // dsh's runners watch for dead runners too (it bounds the pause after a kill to about a second).
  const runner = Layer.mergeAll(EchoLive, deadRunnerWatchLayer({ self: listen })).pipe(
    Layer.provideMerge(clusterRunnerLayer({ listen })),
    Layer.provide(pg)
  )
  Effect.scoped(Effect.gen(function*() {
    yield* Layer.build(runner)
    console.log("ready")
    return yield* Effect.never
  })).pipe(NodeRuntime.runMain)
} else if (mode === "client") {
  client(Number(third), Number(fourth)).pipe(
    Effect.provide(clusterClientLayer().pipe(Layer.provide(pg))),
    NodeRuntime.runMain
  )
} else {
  console.error("usage: bare-cluster.ts runner <url> <port> | client <url> <count> <concurrency>")
  process.exit(2)
}
