import type { AgentHost } from "@dsh/agent"
import type { Registry } from "@dsh/core"
import { Harness, HarnessConfig, SessionHost } from "@dsh/harness"
import type { ModelRegistry } from "@dsh/llm"
import { ChildHost, ChildRunner, type ClusterLayers, ClusterMember, ClusterProvider, RunnerPresence } from "@dsh/subagent-cluster"
import type { ProcessLauncher } from "@dsh/subprocess"
import type { PermissionPolicy } from "@dsh/tools"
import { Duration, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as DshHarness from "./DshHarness.ts"
import * as DshModels from "./DshModels.ts"
import * as DshRun from "./DshRun.ts"

/**
 * A member of the cluster over the store's database: one pool serves the sessions, the cluster
 * and its lane; `[limits] max_concurrent` is the size of the cluster-wide lane, `max_children`
 * holds through the session's state.
 */
const member = (url: string, config: HarnessConfig.HarnessConfig, runner?: ClusterLayers.RunnerAddressInput) =>
  ClusterMember.layer({ url, runner: runner === undefined ? undefined : { listen: runner } }).pipe(Layer.provide(HarnessConfig.configLayer(config)))

/** What a member of the cluster provides, and how building one fails. */
type Member = ReturnType<typeof ClusterMember.layer>

/** How long a run waits for a live runner: `[cluster] runner_wait_seconds`, default 10. */
const runnerWait = (config: HarnessConfig.HarnessConfig) => Duration.seconds(config.cluster.runnerWaitSeconds ?? 10)

/**
 * A parent on the cluster (`dsh run --cluster`): the host, whose delegates run on the runners;
 * it hosts nothing itself. A run waits for a live runner first (`DshRun.RunGate`: one notice,
 * then a failed run naming the store), and so does each child's run (a runner gone mid-run fails
 * that child, not the wait).
 */
export const parentLayer = (place: DshModels.DshPlace, settings: DshHarness.DshSettings, install: DshHarness.DshInstall, url: string, options: {
  /** Told once when the run starts waiting for a runner (`waiting for a runner (none registered in …)`). */
  readonly onWaiting: (notice: string) => Effect.Effect<void>
  readonly flags?: PermissionPolicy.PermissionSettings | undefined
}): Layer.Layer<AgentHost.AgentHost | ModelRegistry.ModelRegistry | Layer.Success<Member>, Layer.Error<Member> | Registry.RegistryError, ProcessLauncher.ProcessLauncher> => {
  const wait = { wait: runnerWait(settings.config), store: RunnerPresence.displayStore(url), onWaiting: options.onWaiting }
  const gate = Layer.effect(DshRun.RunGate, Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return RunnerPresence.awaitRunner(wait).pipe(Effect.provideService(SqlClient.SqlClient, sql))
  }))
  return DshHarness.withSandbox(settings.config, install, (sandbox, launcher) => Harness.layer(DshHarness.options(place, settings, install, { sandbox, launcher, flags: options.flags, cluster: ClusterProvider.make(wait) }))).pipe(
    Layer.merge(gate),
    Layer.provideMerge(member(url, settings.config)),
    Layer.provideMerge(HarnessConfig.configLayer(settings.config)),
    Layer.provideMerge(DshModels.registryLayer(settings.config, place))
  )
}

type ClusterFailure = { readonly _tag: "SqlError" | "ConfigError" | "SocketServerError"; readonly message?: string }

const isClusterFailure = (e: unknown): e is ClusterFailure =>
  typeof e === "object" && e !== null && "_tag" in e && (e._tag === "SqlError" || e._tag === "ConfigError" || e._tag === "SocketServerError")

/** The cluster's own failures (its database, sockets, settings) as a failed run naming the cluster. */
export const runFailures = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, ClusterFailure> | DshRun.RunFailed, R> =>
  effect.pipe(Effect.catchIf(
    (e): e is Extract<E, ClusterFailure> => isClusterFailure(e),
    (e) => Effect.fail(new DshRun.RunFailed({ message: `cluster: ${e.message ?? String(e)}` }))
  )) as Effect.Effect<A, Exclude<E, ClusterFailure> | DshRun.RunFailed, R>

/** A runner (`dsh runner`): a member of the cluster that hosts the sessions' children with dsh's harness. */
export const runnerLayer = (place: DshModels.DshPlace, settings: DshHarness.DshSettings, install: DshHarness.DshInstall, url: string, listen: ClusterLayers.RunnerAddressInput): Layer.Layer<ModelRegistry.ModelRegistry | Layer.Success<Member>, Layer.Error<Member> | Registry.RegistryError, ProcessLauncher.ProcessLauncher> => {
  const host = DshHarness.withSandbox(settings.config, install, (sandbox, launcher) =>
    Layer.effect(
      ChildHost.ChildHost,
      Effect.map(SessionHost.make(DshHarness.options(place, settings, install, { sandbox, launcher, cluster: ClusterProvider.make() })), (sessions) =>
        ChildHost.ChildHost.of({
          open: (sessionId, handle, parentPermissions) =>
            sessions.open(sessionId, handle, parentPermissions).pipe(Effect.mapError((e) => new ChildHost.ChildHostError({ message: e.message })))
        }))
    ))
  return ChildRunner.ChildEntityLive.pipe(
    Layer.provide(host),
    Layer.provideMerge(member(url, settings.config, listen)),
    Layer.provideMerge(HarnessConfig.configLayer(settings.config)),
    Layer.provideMerge(DshModels.registryLayer(settings.config, place))
  )
}
