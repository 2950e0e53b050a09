import { DshStore } from "@dsh/kit/dsh"
import { RunnerListen } from "@dsh/subagent-cluster"
import { Effect, Layer } from "effect"
import { parseFlags } from "../Args.ts"
import { UsageError } from "../CliError.ts"
import type { CliContext } from "../Context.ts"
import { RunOutput } from "@dsh/harness"
import { loadConfig } from "../Config.ts"
import { takeStoreFlag } from "../Store.ts"

const FLAGS = { listen: { type: "string" } } as const

/**
 * `dsh runner --store postgres://… [--listen HOST:PORT]`: hosts children of the cluster's
 * sessions until SIGTERM (or Ctrl-C), then hands its shards over and exits 0. Prints one line
 * when it is ready: `dsh runner listening on HOST:PORT`.
 */
export const runnerCommand = (args: ReadonlyArray<string>, ctx: CliContext) =>
  Effect.gen(function*() {
    const { store, rest } = yield* takeStoreFlag(args)
    const { values, positionals } = yield* parseFlags(rest, FLAGS, "runner")
    if (positionals.length > 0) return yield* new UsageError({ message: `runner takes no argument (got "${positionals[0]}")` })
    const url = yield* DshStore.clusterUrl(yield* DshStore.choose(ctx, yield* loadConfig(ctx.home), store), "runner")
    const listen = yield* RunnerListen.runnerListenAddress(values.listen).pipe(Effect.mapError((e) => new UsageError({ message: e.message })))
    const { loadHarnessSettings } = yield* Effect.promise(() => import("../Host.ts"))
    const settings = yield* loadHarnessSettings(ctx)
    const { runnerLayer, clusterFailures } = yield* Effect.promise(() => import("../Cluster.ts"))
    yield* clusterFailures(Effect.scoped(Effect.gen(function*() {
      yield* Layer.build(runnerLayer(ctx, settings, url, listen))
      yield* RunOutput.writeLine(ctx.stdout, `dsh runner listening on ${listen.host}:${listen.port}`)
      // Until a signal; closing the scope then hands this runner's shards over.
      yield* ctx.interrupted
    })))
  })
