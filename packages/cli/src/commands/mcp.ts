import { VERSION } from "@dsh/core"
import { serveMcp } from "@dsh/mcp-server"
import { Effect } from "effect"
import { resolve } from "node:path"
import { onlyOnce, parseFlags } from "../Args.ts"
import { UsageError } from "../CliError.ts"
import type { CliContext } from "../Context.ts"
import { checkDirectory } from "../Directories.ts"
import { openRequestedSession, writeLine } from "@dsh/harness"
import { cliAllowHint, PERMISSION_FLAGS, type PermissionFlags, readPermissionFlags } from "../Permissions.ts"

// The flags of `dsh run` that choose a session and how it runs (no prompt, no output format).
const FLAGS = {
  agent: { type: "string" },
  "agent-file": { type: "string", multiple: true },
  model: { type: "string" },
  session: { type: "string" },
  continue: { type: "boolean", short: "c" },
  cwd: { type: "string" },
  "trust-project": { type: "boolean" },
  ...PERMISSION_FLAGS
} as const

export interface McpInput {
  readonly cwd: string
  readonly model?: string | undefined
  readonly agent?: string | undefined
  readonly agentFile?: string | undefined
  readonly session?: string | undefined
  readonly continue?: boolean | undefined
  readonly trustProject?: boolean | undefined
  readonly permissions?: PermissionFlags | undefined
}

/** `dsh mcp` flags, checked as `dsh run` checks them; no positionals. */
export const parseMcpArgs = (args: ReadonlyArray<string>, ctx: CliContext) =>
  Effect.gen(function*() {
    const { values, positionals } = yield* parseFlags(args, FLAGS, "mcp")
    if (positionals.length > 0) {
      return yield* new UsageError({ message: `mcp: unexpected argument "${positionals[0]}" (dsh mcp [--agent NAME | --agent-file PATH] [--model SPEC] [--cwd DIR])` })
    }
    const agentFile = yield* onlyOnce(values["agent-file"], "--agent-file")
    if (values.agent !== undefined && agentFile !== undefined) {
      return yield* new UsageError({ message: "use either --agent or --agent-file, not both" })
    }
    if ((values.agent !== undefined || agentFile !== undefined) && (values.session !== undefined || values.continue === true)) {
      return yield* new UsageError({ message: "--agent/--agent-file choose a new session's agent; they cannot be used with --session or --continue" })
    }
    return {
      cwd: resolve(ctx.cwd, values.cwd ?? "."),
      model: values.model,
      agent: values.agent,
      agentFile: agentFile === undefined ? undefined : resolve(ctx.cwd, agentFile),
      session: values.session,
      continue: values.continue,
      trustProject: values["trust-project"],
      permissions: yield* readPermissionFlags(values)
    } satisfies McpInput
  })

/**
 * `dsh mcp`: serves the subagent tools over MCP on stdio until stdin closes, then stops the
 * connection's children and exits 0. One new session per connection unless `--session` or
 * `--continue` names one. stdout carries only protocol frames.
 */
export const executeMcp = (input: McpInput, ctx: CliContext) =>
  Effect.gen(function*() {
    yield* checkDirectory(input.cwd)
    const existing = yield* openRequestedSession({
      session: input.session,
      continue: input.continue,
      cwd: input.cwd,
      model: input.model,
      notice: (line) => writeLine(ctx.stderr, `dsh: warning: ${line}`)
    })
    const extra = { ...(input.agentFile === undefined ? {} : { agentFile: input.agentFile }), ...(input.trustProject === true ? { trustProject: true } : {}) }
    yield* serveMcp({
      input: ctx.stdin,
      output: ctx.stdout,
      serverInfo: { name: "dsh", version: VERSION },
      sessionId: existing?.id,
      create: { cwd: input.cwd, agent: input.agent, model: input.model, extra },
      allowHint: cliAllowHint
    }).pipe(
      // Ended by a signal rather than EOF, stdin would still be read and keep the process alive.
      Effect.ensuring(Effect.sync(() => ctx.stdin.destroy()))
    )
  })
