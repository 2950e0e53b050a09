import { RunOutput } from "@dsh/harness"
import type { DshHarness } from "@dsh/kit/dsh"
import { DshCluster } from "@dsh/kit/dsh-cluster"
import type { ClusterLayers } from "@dsh/subagent-cluster"
import { Effect } from "effect"
import { RunFailed } from "./CliError.ts"
import type { CliContext } from "./Context.ts"
import { cliInstall } from "./Install.ts"
import type { PermissionFlags } from "./Permissions.ts"

/** `dsh run --cluster`: the host on the cluster; its wait for a runner is told on stderr. */
export const clusterHostLayer = (ctx: CliContext, settings: DshHarness.DshSettings, url: string, flags?: PermissionFlags | undefined) =>
  DshCluster.parentLayer(ctx, settings, cliInstall(), url, { flags, onWaiting: (notice) => RunOutput.writeLine(ctx.stderr, `dsh: ${notice}`) })

/** `dsh runner`: a member of the cluster hosting children. */
export const runnerLayer = (ctx: CliContext, settings: DshHarness.DshSettings, url: string, listen: ClusterLayers.RunnerAddressInput) =>
  DshCluster.runnerLayer(ctx, settings, cliInstall(), url, listen)

/** The cluster's own failures (database, sockets, settings) as a failed run: one line, exit 1. */
export const clusterFailures = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(Effect.catchIf(
    (e): e is Extract<E, { readonly _tag: "SqlError" | "ConfigError" | "SocketServerError" }> =>
      typeof e === "object" && e !== null && "_tag" in e && (e._tag === "SqlError" || e._tag === "ConfigError" || e._tag === "SocketServerError"),
    (e) => Effect.fail(new RunFailed({ message: `cluster: ${(e as { message?: string }).message ?? String(e)}` }))
  ))
