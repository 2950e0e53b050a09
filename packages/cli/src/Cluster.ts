import { configLayer, Harness, makeSessionHost, writeLine } from "@dsh/harness"
import {
  awaitRunner,
  ChildEntityLive,
  ChildHost,
  ChildHostError,
  clusterMemberLayer,
  displayStore,
  makeClusterProvider,
  type RunnerAddressInput
} from "@dsh/subagent-cluster"
import { Duration, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { RunFailed } from "./CliError.ts"
import type { DshConfig } from "./Config.ts"
import type { CliContext } from "./Context.ts"
import { dshHarnessOptions, type HarnessSettings, withSandbox } from "./DshHarness.ts"
import type { PermissionFlags } from "./Permissions.ts"
import { RunGate } from "./RunGate.ts"
import { modelRegistryLayer } from "./Runtime.ts"

/**
 * The CLI's cluster layers, composed from `@dsh/subagent-cluster` and `@dsh/harness`. One pool to
 * the store's database serves the sessions, the cluster and its lane; `[limits] max_concurrent`
 * is the size of the cluster-wide lane, `max_children` holds through the session's state.
 */
const member = (url: string, config: DshConfig, runner?: RunnerAddressInput) =>
  clusterMemberLayer({ url, runner: runner === undefined ? undefined : { listen: runner } }).pipe(Layer.provide(configLayer(config)))

/** How long a run waits for a live runner: `[cluster] runner_wait_seconds`, default 10. */
const runnerWait = (config: DshConfig) => Duration.seconds(config.cluster.runnerWaitSeconds ?? 10)

/**
 * `dsh run --cluster`: the host, whose delegates run on the runners; it hosts nothing itself.
 * The run waits for a live runner first (one notice on stderr, then a failed run naming the
 * store), and so does each child's run (a runner gone mid-run fails that child, not the wait).
 */
export const clusterHostLayer = (ctx: CliContext, settings: HarnessSettings, url: string, flags?: PermissionFlags | undefined) => {
  const wait = { wait: runnerWait(settings.config), store: displayStore(url), onWaiting: (notice: string) => writeLine(ctx.stderr, `dsh: ${notice}`) }
  const gate = Layer.effect(RunGate, Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return awaitRunner(wait).pipe(Effect.provideService(SqlClient.SqlClient, sql))
  }))
  return withSandbox(settings.config, (sandbox, launcher) => Harness.layer(dshHarnessOptions(ctx, settings, { sandbox, launcher, flags, cluster: makeClusterProvider(wait) }))).pipe(
    Layer.merge(gate),
    Layer.provideMerge(member(url, settings.config)),
    Layer.provideMerge(configLayer(settings.config)),
    Layer.provideMerge(modelRegistryLayer(settings.config, ctx))
  )
}

/** `dsh runner`: a member of the cluster that hosts the sessions' children with the reference harness. */
export const runnerLayer = (ctx: CliContext, settings: HarnessSettings, url: string, listen: RunnerAddressInput) => {
  const host = withSandbox(settings.config, (sandbox, launcher) =>
    Layer.effect(
      ChildHost,
      Effect.map(makeSessionHost(dshHarnessOptions(ctx, settings, { sandbox, launcher, cluster: makeClusterProvider() })), (sessions) =>
        ChildHost.of({
          open: (sessionId, handle, parentPermissions) =>
            sessions.open(sessionId, handle, parentPermissions).pipe(Effect.mapError((e) => new ChildHostError({ message: e.message })))
        }))
    ))
  return ChildEntityLive.pipe(
    Layer.provide(host),
    Layer.provideMerge(member(url, settings.config, listen)),
    Layer.provideMerge(configLayer(settings.config)),
    Layer.provideMerge(modelRegistryLayer(settings.config, ctx))
  )
}

/** The cluster's own failures (database, sockets, settings) as a failed run: one line, exit 1. */
export const clusterFailures = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(Effect.catchIf(
    (e): e is Extract<E, { readonly _tag: "SqlError" | "ConfigError" | "SocketServerError" }> =>
      typeof e === "object" && e !== null && "_tag" in e && (e._tag === "SqlError" || e._tag === "ConfigError" || e._tag === "SocketServerError"),
    (e) => Effect.fail(new RunFailed({ message: `cluster: ${(e as { message?: string }).message ?? String(e)}` }))
  ))
