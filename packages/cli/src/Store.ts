import { FileSessionStore, parseStoreSpec, type SessionError, type SessionStore } from "@dsh/session"
import { Effect, Layer, Result } from "effect"
import { UsageError } from "./CliError.ts"
import { loadConfig } from "./Config.ts"
import type { CliContext } from "./Context.ts"

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
 * The session store a command uses: `--store`, else `DSH_STORE`, else `store =` in config.toml,
 * else the file store in `$DSH_HOME` (the embedded default). A setting that is neither a
 * directory nor a postgres:// URL is a usage error naming where it came from. Relative
 * directories are resolved against the working directory (flag, environment) or `$DSH_HOME` (config).
 */
export const sessionStoreLayer = (flag: string | undefined, ctx: CliContext): Effect.Effect<Layer.Layer<SessionStore, SessionError>, UsageError> =>
  Effect.gen(function*() {
    const env = ctx.env.DSH_STORE === "" ? undefined : ctx.env.DSH_STORE
    const configured = flag === undefined && env === undefined ? (yield* loadConfig(ctx.home)).store : undefined
    const [source, value, base] = flag !== undefined
      ? ["--store", flag, ctx.cwd]
      : env !== undefined
      ? ["DSH_STORE", env, ctx.cwd]
      : configured !== undefined
      ? ["store (config.toml)", configured, ctx.home]
      : ["default", ctx.home, ctx.home]
    const spec = parseStoreSpec(value, base)
    if (Result.isFailure(spec)) return yield* new UsageError({ message: `${source} ${spec.failure}` })
    const chosen = spec.success
    // `storeLayer` of @dsh/session-pg, loaded only for a URL: commands on the file store never
    // pay for the PostgreSQL client's modules at start-up.
    return chosen._tag === "File"
      ? FileSessionStore.layer({ home: chosen.home })
      : Layer.unwrap(Effect.promise(() => import("@dsh/session-pg")).pipe(Effect.map((m) => m.storeLayer(chosen))))
  })

/** Runs a command that reads or writes sessions: `--store` taken from its arguments, its store provided. */
export const withSessionStore = <A, E, R>(
  args: ReadonlyArray<string>,
  ctx: CliContext,
  command: (rest: ReadonlyArray<string>) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | UsageError | SessionError, Exclude<R, SessionStore>> =>
  Effect.gen(function*() {
    const { store, rest } = yield* takeStoreFlag(args)
    const layer = yield* sessionStoreLayer(store, ctx)
    return yield* command(rest).pipe(Effect.provide(layer))
  })
