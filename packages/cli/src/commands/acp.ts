import * as acp from "@agentclientprotocol/sdk/unstable"
import { serveAcp } from "@dsh/acp-agent"
import { VERSION } from "@dsh/core"
import { webStdio } from "@dsh/subprocess"
import { Effect } from "effect"
import { join } from "node:path"
import { loadConfig } from "../Config.ts"
import type { CliContext } from "../Context.ts"
import { fileLogger } from "../Logger.ts"
import { prepareProtocolServe } from "../ProtocolServe.ts"

/**
 * `dsh acp`: serves the dsh agent over ACP on stdio until stdin closes. stdout carries only
 * protocol frames; logs go to `$DSH_HOME/logs/acp.log`. A bad `--cwd` or `--model` is found
 * before anything is served (exit 2), so a parent sees the reason on stderr.
 */
export const acpCommand = (args: ReadonlyArray<string>, ctx: CliContext) =>
  Effect.gen(function*() {
    const { agent, serve, model } = yield* prepareProtocolServe("acp", args, ctx)
    // `[acp] context_window = N` in config.toml: the model's window, which enables `usage_update`.
    const contextWindow = (yield* loadConfig(ctx.home)).acpContextWindow
    const io = webStdio(ctx.stdout, ctx.stdin)
    yield* serve(serveAcp({
      stream: acp.ndJsonStream(io.writable, io.readable),
      agentInfo: { name: "dsh", title: "dsh", version: VERSION },
      defaults: { agent, model },
      contextWindow,
      logger: fileLogger(join(ctx.home, "logs", "acp.log"))
    })).pipe(
      // Ended by a signal rather than EOF, stdin would still be read and keep the process alive.
      Effect.ensuring(Effect.sync(() => ctx.stdin.destroy()))
    )
  })
