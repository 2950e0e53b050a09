import { Effect, Layer } from "effect"
import { createServer } from "node:net"
import { parseFlags } from "../Args.ts"
import { UsageError } from "../CliError.ts"
import type { CliContext } from "../Context.ts"
import { writeLine } from "@dsh/harness"
import { chooseStore, takeStoreFlag } from "../Store.ts"

const FLAGS = { listen: { type: "string" } } as const

/** `HOST:PORT`, `HOST` or `:PORT` (the missing part: 127.0.0.1, or a free port picked here; so is port 0). */
const parseListen = (value: string | undefined) =>
  Effect.gen(function*() {
    const text = value ?? ""
    const colon = text.lastIndexOf(":")
    const host = (colon === -1 ? text : text.slice(0, colon)).replace(/^\[(.*)\]$/, "$1") || "127.0.0.1"
    const portText = colon === -1 ? "" : text.slice(colon + 1)
    const port = portText === "" ? 0 : Number(portText)
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      return yield* new UsageError({ message: `--listen must be HOST:PORT with a port from 0 to 65535 (got "${text}")` })
    }
    // Port 0: a free one, picked here, is what the runner listens on and advertises.
    return { host, port: port === 0 ? yield* freePort(host) : port }
  })

/** A port nothing listens on now on `host` (the runner binds it a moment later). */
const freePort = (host: string) =>
  Effect.callback<number, UsageError>((resume) => {
    const probe = createServer()
    probe.once("error", (e) => resume(Effect.fail(new UsageError({ message: `--listen: cannot listen on ${host}: ${e.message}` }))))
    probe.listen(0, host, () => {
      const address = probe.address()
      probe.close(() => resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : 0)))
    })
  })

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
    const chosen = yield* chooseStore(store, ctx)
    if (chosen.spec._tag !== "Postgres") {
      return yield* new UsageError({ message: `runner needs a PostgreSQL store (--store postgres://…, DSH_STORE or store = in config.toml); ${chosen.source} is the directory ${chosen.spec.home}` })
    }
    const listen = yield* parseListen(values.listen)
    const { loadHarnessSettings } = yield* Effect.promise(() => import("../Host.ts"))
    const settings = yield* loadHarnessSettings(ctx)
    const { runnerLayer, clusterFailures } = yield* Effect.promise(() => import("../Cluster.ts"))
    yield* clusterFailures(Effect.scoped(Effect.gen(function*() {
      yield* Layer.build(runnerLayer(ctx, settings, chosen.spec._tag === "Postgres" ? chosen.spec.url : "", listen))
      yield* writeLine(ctx.stdout, `dsh runner listening on ${listen.host}:${listen.port}`)
      // Until a signal; closing the scope then hands this runner's shards over.
      yield* ctx.interrupted
    })))
  })
