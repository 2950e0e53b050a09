import { RunOutput } from "@dsh/harness"
import type { DshHarness } from "@dsh/kit/dsh"
import { DshCluster } from "@dsh/kit/dsh-cluster"
import type { ClusterLayers } from "@dsh/subagent-cluster"
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
export const clusterFailures = DshCluster.runFailures
