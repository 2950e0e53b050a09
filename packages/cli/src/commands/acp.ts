import * as acp from "@agentclientprotocol/sdk/unstable"
import { serveAcp } from "@dsh/acp-agent"
import { ModelRegistry } from "@dsh/llm"
import { webStdio } from "@dsh/subprocess"
import { Effect } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { parseFlags } from "../Args.ts"
import { UsageError } from "../CliError.ts"
import type { CliContext } from "../Context.ts"
import { checkDirectory } from "../Directories.ts"
import { makeCliHost } from "../Host.ts"
import { fileLogger } from "../Logger.ts"

const FLAGS = {
  agent: { type: "string" },
  model: { type: "string" },
  cwd: { type: "string" }
} as const

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
 * protocol frames; logs go to `$DSH_HOME/logs/acp.log`. A bad `--cwd` is refused before
 * anything is served, a bad `--model` as soon as it is known (exit 2 either way), so a parent
 * sees the reason on stderr.
 */
export const acpCommand = (args: ReadonlyArray<string>, ctx: CliContext) =>
  Effect.gen(function*() {
    const { values, positionals } = yield* parseFlags(args, FLAGS, "acp")
    if (positionals.length > 0) {
      return yield* new UsageError({ message: `acp: unexpected argument "${positionals[0]}" (dsh acp [--agent NAME] [--model SPEC] [--cwd DIR])` })
    }
    const cwd = resolve(ctx.cwd, values.cwd ?? ".")
    yield* checkDirectory(cwd)
    const registry = yield* ModelRegistry
    const model = values.model
    // Checked while `initialize` is already being answered: a bad --model still ends the
    // process with exit 2 and the reason on stderr, but start-up does not wait for it.
    const checkModel = model === undefined ? Effect.void : registry.resolve(model, { env: ctx.env, cwd }).pipe(Effect.asVoid)
    const host = yield* makeCliHost({ ...ctx, cwd })
    const io = webStdio(ctx.stdout, ctx.stdin)
    const serve = serveAcp(host, {
      stream: acp.ndJsonStream(io.writable, io.readable),
      agentInfo: { name: "dsh", title: "dsh", version: cliVersion() },
      defaults: { agent: values.agent, model },
      logger: fileLogger(join(ctx.home, "logs", "acp.log"))
    })
    yield* Effect.all([serve, checkModel], { concurrency: "unbounded", discard: true })
  })
