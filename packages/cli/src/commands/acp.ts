import * as acp from "@agentclientprotocol/sdk/unstable"
import { serveAcp } from "@dsh/acp-agent"
import { VERSION } from "@dsh/core"
import { ProcessLauncher, webStdio } from "@dsh/subprocess"
import { fileLogger } from "@dsh/telemetry/file-log"
import { connectMcpServers, fromAcpMcpServer, type McpServerConfig } from "@dsh/tools-mcp"
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
    const launcher = yield* ProcessLauncher
    // MCP servers a client gives a session: stdio ones through our launcher, HTTP ones directly.
    const connectMcp = (servers: ReadonlyArray<acp.McpServer>) =>
      Effect.gen(function*() {
        const configs: Array<McpServerConfig> = []
        for (const server of servers) {
          const config = fromAcpMcpServer(server)
          if (config === undefined) return yield* Effect.fail(`MCP server "${server.name}": only stdio and HTTP servers are supported`)
          configs.push({ ...config, ...("command" in config ? { cwd: serveCwd } : {}) })
        }
        return yield* connectMcpServers(configs).pipe(Effect.mapError((e) => e.message), Effect.provideService(ProcessLauncher, launcher))
      })
    const io = webStdio(ctx.stdout, ctx.stdin)
    yield* serve(serveAcp({
      stream: acp.ndJsonStream(io.writable, io.readable),
      agentInfo: { name: "dsh", title: "dsh", version: VERSION },
      defaults: { agent, model },
      contextWindow,
      connectMcp,
      logger: fileLogger(join(ctx.home, "logs", "acp.log"), { deferred: true })
    })).pipe(
      // Ended by a signal rather than EOF, stdin would still be read and keep the process alive.
      Effect.ensuring(Effect.sync(() => ctx.stdin.destroy()))
    )
  })
