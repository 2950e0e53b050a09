import { FileSessionStore, type SessionError, type SessionStore, StoreChoice, type StoreSpec, StoreTrouble } from "@dsh/session"
import { StderrWarnings } from "@dsh/telemetry/file-log"
import { Effect, Layer, Result } from "effect"
import { UsageError } from "./CliError.ts"
import { type DshConfig, loadConfig } from "./Config.ts"
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

/**
 * The session store a command uses (`chooseStoreSpec` of `@dsh/session`: `--store`, else
 * `DSH_STORE`, else `store =` in config.toml, else `$DSH_HOME`); a bad setting is a usage error.
 * `loaded`: config.toml when the caller has read it already.
 */
export const chooseStore = (flag: string | undefined, ctx: CliContext, loaded?: DshConfig): Effect.Effect<StoreChoice.ChosenStore, UsageError> =>
  Effect.gen(function*() {
    const env = ctx.env.DSH_STORE === "" ? undefined : ctx.env.DSH_STORE
    const configured = flag === undefined && env === undefined ? (loaded ?? (yield* loadConfig(ctx.home))).store : undefined
    const chosen = StoreChoice.chooseStoreSpec({ flag, env, configured, cwd: ctx.cwd, home: ctx.home })
    return Result.isFailure(chosen) ? yield* new UsageError({ message: chosen.failure }) : chosen.success
  })

/** The `SessionStore` layer of a chosen store. */
export const storeLayerOf = (chosen: StoreSpec.StoreSpec): Layer.Layer<SessionStore.SessionStore, SessionError.SessionError> =>
  // `storeLayer` of @dsh/session-pg, loaded only for a URL: commands on the file store never
  // pay for the PostgreSQL client's modules at start-up.
  chosen._tag === "File"
    ? FileSessionStore.layer({ home: chosen.home })
    : Layer.unwrap(Effect.promise(() => import("@dsh/session-pg")).pipe(Effect.map((m) => m.StoreLayer.storeLayer(chosen))))

/** The session store a command uses (see `chooseStore`), as a layer. */
export const sessionStoreLayer = (flag: string | undefined, ctx: CliContext): Effect.Effect<Layer.Layer<SessionStore.SessionStore, SessionError.SessionError>, UsageError> =>
  Effect.map(chooseStore(flag, ctx), ({ spec }) => storeLayerOf(spec))

/** Runs a command that reads or writes sessions: `--store` taken from its arguments, its store provided. */
export const withSessionStore = <A, E, R>(
  args: ReadonlyArray<string>,
  ctx: CliContext,
  command: (rest: ReadonlyArray<string>) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | UsageError | SessionError.SessionError, Exclude<R, SessionStore.SessionStore>> =>
  Effect.gen(function*() {
    const { store, rest } = yield* takeStoreFlag(args)
    const layer = yield* sessionStoreLayer(store, ctx)
    return yield* command(rest).pipe(Effect.provide(layer))
  })

/** `--cluster` taken out of a command's arguments (scanning stops at `--`). */
export const takeClusterFlag = (args: ReadonlyArray<string>): { readonly cluster: boolean; readonly rest: ReadonlyArray<string> } => {
  const end = args.indexOf("--")
  const head = end === -1 ? args : args.slice(0, end)
  const tail = end === -1 ? [] : args.slice(end)
  return { cluster: head.includes("--cluster"), rest: [...head.filter((a) => a !== "--cluster"), ...tail] }
}

/**
 * Runs a command that runs agents over sessions: `--store` and `--cluster` taken from its
 * arguments, the rest parsed by `parse` (whose result may carry permission flags for the host),
 * its store and host provided. With `--cluster` (or `[cluster] enabled = true`) the host
 * delegates through the cluster's runners, which needs a PostgreSQL store (else a usage error).
 */
export const withHostedStore = <I, A, E, R>(
  args: ReadonlyArray<string>,
  ctx: CliContext,
  parse: (rest: ReadonlyArray<string>) => Effect.Effect<I, UsageError>,
  flagsOf: (input: I) => PermissionFlags | undefined,
  command: (input: I) => Effect.Effect<A, E, R>
) =>
  Effect.gen(function*() {
    const { store, rest: afterStore } = yield* takeStoreFlag(args)
    const { cluster, rest } = takeClusterFlag(afterStore)
    const input = yield* parse(rest)
    const flags = flagsOf(input)
    // config.toml is read once: for the store, the cluster setting and the host.
    const config = yield* loadConfig(ctx.home)
    const chosen = yield* chooseStore(store, ctx, config)
    const { harnessSettings, hostLayerOf } = yield* Effect.promise(() => import("./Host.ts"))
    const settings = yield* harnessSettings(ctx, config)
    if (!cluster && !config.cluster.enabled) {
      return yield* command(input).pipe(Effect.provide(hostLayerOf(ctx, settings, flags)), Effect.provide(storeLayerOf(chosen.spec)))
    }
    if (chosen.spec._tag !== "Postgres") {
      const why = cluster ? "--cluster" : "[cluster] enabled (config.toml)"
      return yield* new UsageError({ message: `${why} needs a PostgreSQL store (--store postgres://…, DSH_STORE or store = in config.toml); sessions are in ${chosen.spec.home}` })
    }
    const { clusterHostLayer, clusterFailures } = yield* Effect.promise(() => import("./Cluster.ts"))
    return yield* clusterFailures(command(input).pipe(Effect.provide(clusterHostLayer(ctx, settings, chosen.spec.url, flags)))).pipe(
      // The store gone mid-run: one line (the run's failure), the warnings that follow in the log file.
      Effect.provideService(StderrWarnings, StoreTrouble.quietOnceStoreDown())
    )
  })
