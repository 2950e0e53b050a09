import { Version } from "@dsh/core"
import { DshFlags, type DshRun } from "@dsh/kit/dsh"
import { ServeMcp } from "@dsh/mcp-server"
import { Effect } from "effect"
import { parseFlags } from "../Args.ts"
import { UsageError } from "../CliError.ts"
import type { CliContext } from "../Context.ts"
import { RunOutput, SessionChoice } from "@dsh/harness"
import { cliAllowHint, type PermissionFlags } from "../Permissions.ts"

// The flags of `dsh run` that choose a session and how it runs (no prompt, no output format).
const FLAGS = { ...DshFlags.SESSION_FLAGS, ...DshFlags.PERMISSION_FLAGS } as const

/** A session chosen as `dsh run` chooses it (no prompt), and the permission flags. */
export interface McpInput extends Pick<DshRun.RunRequest, "cwd" | "model" | "agent" | "agentFile" | "session" | "continue" | "trustProject"> {
  readonly permissions?: PermissionFlags | undefined
}

/** `dsh mcp` flags, checked as `dsh run` checks them; no positionals. */
export const parseMcpArgs = (args: ReadonlyArray<string>, ctx: CliContext) =>
  Effect.gen(function*() {
    const { values, positionals } = yield* parseFlags(args, FLAGS, "mcp")
    if (positionals.length > 0) {
      return yield* new UsageError({ message: `mcp: unexpected argument "${positionals[0]}" (dsh mcp [--agent NAME | --agent-file PATH] [--model SPEC] [--cwd DIR])` })
    }
    return { ...(yield* DshFlags.session(values, ctx.cwd)), permissions: yield* DshFlags.permissions(values) } satisfies McpInput
  })

/**
 * `dsh mcp`: serves the subagent tools over MCP on stdio until stdin closes, then stops the
 * connection's children and exits 0. One new session per connection unless `--session` or
 * `--continue` names one. stdout carries only protocol frames.
 */
export const executeMcp = (input: McpInput, ctx: CliContext) =>
  Effect.gen(function*() {
    yield* DshFlags.directory(input.cwd)
    const existing = yield* SessionChoice.openRequestedSession({
      session: input.session,
      continue: input.continue,
      cwd: input.cwd,
      model: input.model,
      notice: (line) => RunOutput.writeLine(ctx.stderr, `dsh: warning: ${line}`)
    })
    const extra = { ...(input.agentFile === undefined ? {} : { agentFile: input.agentFile }), ...(input.trustProject === true ? { trustProject: true } : {}) }
    yield* ServeMcp.serveMcp({
      input: ctx.stdin,
      output: ctx.stdout,
      serverInfo: { name: "dsh", version: Version.VERSION },
      sessionId: existing?.id,
      create: { cwd: input.cwd, agent: input.agent, model: input.model, extra },
      allowHint: cliAllowHint
    }).pipe(
      // Ended by a signal rather than EOF, stdin would still be read and keep the process alive.
      Effect.ensuring(Effect.sync(() => ctx.stdin.destroy()))
    )
  })
