import * as acp from "@agentclientprotocol/sdk/unstable"
import { ServeAcp } from "@dsh/acp-agent"
import { Version } from "@dsh/core"
import { ProcessLauncher, WebStdio } from "@dsh/subprocess"
import { fileLogger } from "@dsh/telemetry/file-log"
import { McpTools } from "@dsh/tools-mcp"
import { Effect } from "effect"
import { join } from "node:path"
import { loadConfig } from "../Config.ts"
import type { CliContext } from "../Context.ts"
import { prepareProtocolServe } from "../ProtocolServe.ts"

/**
 * `dsh acp`: serves the dsh agent over ACP on stdio until stdin closes. stdout carries only
 * protocol frames; logs go to `$DSH_HOME/logs/acp.log`. A bad `--cwd` or `--model` is found
 * before anything is served (exit 2), so a parent sees the reason on stderr.
 */
export const acpCommand = (args: ReadonlyArray<string>, ctx: CliContext) =>
  Effect.gen(function*() {
    const { agent, serve, model, cwd: serveCwd } = yield* prepareProtocolServe("acp", args, ctx)
    // `[acp] context_window = N` in config.toml: the model's window, which enables `usage_update`.
    const contextWindow = (yield* loadConfig(ctx.home)).acpContextWindow
    const launcher = yield* ProcessLauncher.ProcessLauncher
    // MCP servers a client gives a session: stdio ones through our launcher, HTTP ones directly.
    const connectMcp = (servers: ReadonlyArray<acp.McpServer>) =>
      McpTools.connectAcpMcpServers(servers, serveCwd).pipe(Effect.provideService(ProcessLauncher.ProcessLauncher, launcher))
    const io = WebStdio.webStdio(ctx.stdout, ctx.stdin)
    yield* serve(ServeAcp.serveAcp({
      stream: acp.ndJsonStream(io.writable, io.readable),
      agentInfo: { name: "dsh", title: "dsh", version: Version.VERSION },
      defaults: { agent, model },
      contextWindow,
      connectMcp,
      logger: fileLogger(join(ctx.home, "logs", "acp.log"), { deferred: true })
    })).pipe(
      // Ended by a signal rather than EOF, stdin would still be read and keep the process alive.
      Effect.ensuring(Effect.sync(() => ctx.stdin.destroy()))
    )
  })
