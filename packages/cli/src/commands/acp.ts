import * as acp from "@agentclientprotocol/sdk/unstable"
import { serveAcp } from "@dsh/acp-agent"
import { webStdio } from "@dsh/subprocess"
import { Effect } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { loadConfig } from "../Config.ts"
import type { CliContext } from "../Context.ts"
import { fileLogger } from "../Logger.ts"
import { prepareProtocolServe } from "../ProtocolServe.ts"

/** The CLI's own version: the nearest `@dsh/cli` package.json (works from source and from the bundle). */
export const cliVersion = (): string => {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (let i = 0; i < 5; i++) {
    const file = join(dir, "package.json")
    if (existsSync(file)) {
      try {
        const pkg = JSON.parse(readFileSync(file, "utf8")) as { name?: string; version?: string }
        if (pkg.name === "@dsh/cli" && typeof pkg.version === "string") return pkg.version
      } catch {
        // not ours; keep looking
      }
    }
    dir = dirname(dir)
  }
  return "0.0.0"
}

/**
 * `dsh acp`: serves the dsh agent over ACP on stdio until stdin closes. stdout carries only
 * protocol frames; logs go to `$DSH_HOME/logs/acp.log`. A bad `--cwd` or `--model` is found
 * before anything is served (exit 2), so a parent sees the reason on stderr.
 */
export const acpCommand = (args: ReadonlyArray<string>, ctx: CliContext) =>
  Effect.gen(function*() {
    const { agent, host, model } = yield* prepareProtocolServe("acp", args, ctx)
    // `[acp] context_window = N` in config.toml: the model's window, which enables `usage_update`.
    const acpTable = (yield* loadConfig(ctx.home)).raw.acp as { readonly context_window?: unknown } | undefined
    const contextWindow = typeof acpTable?.context_window === "number" && acpTable.context_window > 0 ? acpTable.context_window : undefined
    const io = webStdio(ctx.stdout, ctx.stdin)
    yield* serveAcp(host, {
      stream: acp.ndJsonStream(io.writable, io.readable),
      agentInfo: { name: "dsh", title: "dsh", version: cliVersion() },
      defaults: { agent, model },
      contextWindow,
      logger: fileLogger(join(ctx.home, "logs", "acp.log"))
    }).pipe(
      // Ended by a signal rather than EOF, stdin would still be read and keep the process alive.
      Effect.ensuring(Effect.sync(() => ctx.stdin.destroy()))
    )
  })
