import { type DshFlags, type DshHarness, DshStore } from "@dsh/kit/dsh"
import { StoreTrouble } from "@dsh/session"
import { StderrWarnings } from "@dsh/telemetry/file-log"
import { Effect } from "effect"
import { UsageError } from "./CliError.ts"
import { loadConfig } from "./Config.ts"
import type { CliContext } from "./Context.ts"
import type { PermissionFlags } from "./Permissions.ts"

/**
 * `--store VALUE` (or `--store=VALUE`) taken out of a command's arguments, so every command that
 * reads or writes sessions accepts it the same way. Scanning stops at `--`.
 */
export const takeStoreFlag = (args: ReadonlyArray<string>): Effect.Effect<{ readonly store?: string | undefined; readonly rest: ReadonlyArray<string> }, UsageError> =>
  Effect.suspend(() => {
    const rest: Array<string> = []
    let store: string | undefined
    for (let i = 0; i < args.length; i++) {
      const arg = args[i]!
      if (arg === "--") {
        rest.push(...args.slice(i))
        break
      }
      if (arg === "--store" || arg.startsWith("--store=")) {
        const value = arg === "--store" ? args[++i] : arg.slice("--store=".length)
        if (value === undefined || value === "") return Effect.fail(new UsageError({ message: "--store needs a value: a directory or a postgres:// URL" }))
        store = value
      } else rest.push(arg)
    }
    return Effect.succeed({ store, rest })
  })

/** `--cluster` taken out of a command's arguments (scanning stops at `--`). */
const takeClusterFlag = (args: ReadonlyArray<string>): { readonly cluster: boolean; readonly rest: ReadonlyArray<string> } => {
  const end = args.indexOf("--") === -1 ? args.length : args.indexOf("--")
  return { cluster: args.slice(0, end).includes("--cluster"), rest: [...args.slice(0, end).filter((a) => a !== "--cluster"), ...args.slice(end)] }
}

/** Runs a command that reads or writes sessions: `--store` taken from its arguments, its store provided. */
export const withSessionStore = <A, E, R>(args: ReadonlyArray<string>, ctx: CliContext, command: (rest: ReadonlyArray<string>) => Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const { store, rest } = yield* takeStoreFlag(args)
    const chosen = yield* DshStore.choose(ctx, yield* loadConfig(ctx.home), store)
    return yield* command(rest).pipe(Effect.provide(DshStore.layer(chosen.spec)))
  })

/**
 * Runs a command that runs agents over sessions: `--store` and `--cluster` taken from its
 * arguments, the rest parsed by `parse` (whose result may carry permission flags for the host),
 * its store and host provided. With `--cluster` (or `[cluster] enabled = true`) the host
 * delegates through the cluster's runners, which needs a PostgreSQL store.
 */
export const withHostedStore = <I, A, E, R>(
  args: ReadonlyArray<string>,
  ctx: CliContext,
  parse: (rest: ReadonlyArray<string>) => Effect.Effect<I, UsageError | DshFlags.DshFlagError>,
  flagsOf: (input: I) => PermissionFlags | undefined,
  command: (input: I) => Effect.Effect<A, E, R>
) =>
  Effect.gen(function*() {
    const { store, rest: afterStore } = yield* takeStoreFlag(args)
    const { cluster, rest } = takeClusterFlag(afterStore)
    const input = yield* parse(rest)
    // config.toml is read once: for the store, the cluster setting and the host.
    const config = yield* loadConfig(ctx.home)
    const chosen = yield* DshStore.choose(ctx, config, store)
    const { harnessSettings, hostLayerOf } = yield* Effect.promise(() => import("./Host.ts"))
    const settings: DshHarness.DshSettings = yield* harnessSettings(ctx, config)
    if (!cluster && !config.cluster.enabled) {
      return yield* command(input).pipe(Effect.provide(hostLayerOf(ctx, settings, flagsOf(input))), Effect.provide(DshStore.layer(chosen.spec)))
    }
    const url = yield* DshStore.clusterUrl(chosen, cluster ? "--cluster" : "[cluster] enabled (config.toml)")
    const { clusterHostLayer, clusterFailures } = yield* Effect.promise(() => import("./Cluster.ts"))
    return yield* clusterFailures(command(input).pipe(Effect.provide(clusterHostLayer(ctx, settings, url, flagsOf(input))))).pipe(
      // The store gone mid-run: one line (the run's failure), the warnings that follow in the log file.
      Effect.provideService(StderrWarnings, StoreTrouble.quietOnceStoreDown())
    )
  })
