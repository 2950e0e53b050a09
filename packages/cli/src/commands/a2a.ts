import { ListenAddress } from "@dsh/core"
import { RunOutput } from "@dsh/harness"
import { DshA2a, DshFlags } from "@dsh/kit/dsh"
import { Effect, Result } from "effect"
import { resolve } from "node:path"
import { parseFlags } from "../Args.ts"
import { UsageError } from "../CliError.ts"
import { loadConfig } from "../Config.ts"
import type { CliContext } from "../Context.ts"
import { cliInstall } from "../Install.ts"
import { cliAllowHint, type PermissionFlags } from "../Permissions.ts"

const FLAGS = { listen: { type: "string" }, agent: { type: "string" }, model: { type: "string" }, cwd: { type: "string" }, ...DshFlags.PERMISSION_FLAGS } as const

export interface A2aInput extends ListenAddress.ListenAddress, DshA2a.ServeCreate {
  readonly permissions?: PermissionFlags | undefined
}

const USAGE = "dsh a2a --listen HOST:PORT [--agent NAME] [--model SPEC] [--cwd DIR]"

/** `dsh a2a` flags: `--listen HOST:PORT` is required (`:0` binds a free port). */
export const parseA2aArgs = (args: ReadonlyArray<string>, ctx: CliContext) =>
  Effect.gen(function*() {
    const { values, positionals } = yield* parseFlags(args, FLAGS, "a2a")
    if (positionals.length > 0) return yield* new UsageError({ message: `a2a: unexpected argument "${positionals[0]}" (${USAGE})` })
    if (values.listen === undefined) return yield* new UsageError({ message: `a2a: --listen HOST:PORT is required (${USAGE})` })
    const listen = ListenAddress.parse(values.listen, { portRequired: true })
    if (Result.isFailure(listen)) return yield* new UsageError({ message: listen.failure })
    return { ...listen.success, cwd: resolve(ctx.cwd, values.cwd ?? "."), agent: values.agent, model: values.model, permissions: yield* DshFlags.permissions(values) } satisfies A2aInput
  })

/**
 * `dsh a2a --listen HOST:PORT`: serves the main agent (with its subagents) as an A2A agent
 * (`DshA2a.serve`) until SIGTERM or Ctrl-C; prints `dsh a2a listening on <url>` when it is ready.
 */
export const executeA2a = (input: A2aInput, ctx: CliContext) =>
  Effect.gen(function*() {
    yield* DshFlags.directory(input.cwd)
    const config = yield* loadConfig(ctx.home)
    yield* Effect.scoped(Effect.gen(function*() {
      const create = { cwd: input.cwd, agent: input.agent, model: input.model }
      const served = yield* DshA2a.serve(ctx, config, cliInstall(), { host: input.host, port: input.port, create, allowHint: cliAllowHint })
      yield* RunOutput.writeLine(ctx.stdout, `dsh a2a listening on ${served.url}`)
      yield* ctx.interrupted
    }))
  })
