import { AgentHost } from "@dsh/agent"
import { ResolveAgents } from "@dsh/agent-files"
import { FileAgents, RunOutput } from "@dsh/harness"
import { Version } from "@dsh/core"
import { DshHarness } from "@dsh/kit/dsh"
import { cardSkills, PERMISSION_QUESTIONS_EXTENSION, serveA2a, serveToken } from "@dsh/subagent-a2a/serve"
import { Asker } from "@dsh/tools"
import { Effect, Result } from "effect"
import { join, resolve } from "node:path"
import { parseFlags } from "../Args.ts"
import { UsageError } from "../CliError.ts"
import type { CliContext } from "../Context.ts"
import { loadConfig } from "../Config.ts"
import { checkDirectory } from "../Directories.ts"
import { cliInstall } from "../Install.ts"
import { cliAllowHint, PERMISSION_FLAGS, type PermissionFlags, readPermissionFlags } from "../Permissions.ts"

const FLAGS = {
  listen: { type: "string" },
  agent: { type: "string" },
  model: { type: "string" },
  cwd: { type: "string" },
  ...PERMISSION_FLAGS
} as const

export interface A2aInput {
  readonly host: string
  readonly port: number
  readonly cwd: string
  readonly agent?: string | undefined
  readonly model?: string | undefined
  readonly permissions?: PermissionFlags | undefined
}

const USAGE = "dsh a2a --listen HOST:PORT [--agent NAME] [--model SPEC] [--cwd DIR]"

/** `dsh a2a` flags: `--listen HOST:PORT` is required (`:0` binds a free port). */
export const parseA2aArgs = (args: ReadonlyArray<string>, ctx: CliContext) =>
  Effect.gen(function*() {
    const { values, positionals } = yield* parseFlags(args, FLAGS, "a2a")
    if (positionals.length > 0) return yield* new UsageError({ message: `a2a: unexpected argument "${positionals[0]}" (${USAGE})` })
    const text = values.listen
    if (text === undefined) return yield* new UsageError({ message: `a2a: --listen HOST:PORT is required (${USAGE})` })
    const colon = text.lastIndexOf(":")
    const host = (colon === -1 ? text : text.slice(0, colon)).replace(/^\[(.*)\]$/, "$1") || "127.0.0.1"
    const port = colon === -1 ? Number.NaN : Number(text.slice(colon + 1))
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      return yield* new UsageError({ message: `--listen must be HOST:PORT with a port from 0 to 65535 (got "${text}")` })
    }
    return {
      host,
      port,
      cwd: resolve(ctx.cwd, values.cwd ?? "."),
      agent: values.agent,
      model: values.model,
      permissions: yield* readPermissionFlags(values)
    } satisfies A2aInput
  })

/**
 * `dsh a2a --listen HOST:PORT`: serves the main agent (with its subagents) as an A2A agent
 * until SIGTERM or Ctrl-C; prints `dsh a2a listening on <url>` when it is ready. Each A2A
 * `contextId` is one dsh session, recorded under `$DSH_HOME/a2a/contexts`. `[a2a.serve]
 * token_env` names the variable holding a bearer token that every request must carry. A client
 * that activates the permission-questions extension is asked on its task (`input-required`); for
 * any other, a permission `ask` is a denial naming the rule and the extension.
 */
export const executeA2a = (input: A2aInput, ctx: CliContext) =>
  Effect.gen(function*() {
    yield* checkDirectory(input.cwd)
    const config = yield* loadConfig(ctx.home)
    const resolved = yield* ResolveAgents.resolveAgents(FileAgents.agentSearch(DshHarness.agentFiles(ctx, config, cliInstall()), { cwd: input.cwd })).pipe(
      Effect.mapError((e) => new UsageError({ message: e.message }))
    )
    const token = serveToken(config.raw, ctx.env)
    if (Result.isFailure(token)) return yield* new UsageError({ message: token.failure })
    const host = yield* AgentHost.AgentHost
    yield* Effect.scoped(Effect.gen(function*() {
      const served = yield* serveA2a({
        host: input.host,
        port: input.port,
        token: token.success,
        contextsDir: join(ctx.home, "a2a", "contexts"),
        create: { cwd: input.cwd, agent: input.agent, model: input.model },
        version: Version.VERSION,
        skills: cardSkills(resolved.agents.filter(ResolveAgents.isDelegable))
      }).pipe(Effect.provideService(AgentHost.AgentHost, host), Effect.mapError((e) => new UsageError({ message: e.message })))
      yield* RunOutput.writeLine(ctx.stdout, `dsh a2a listening on ${served.url}`)
      yield* ctx.interrupted
    })).pipe(
      Effect.provideService(Asker.Asker, Asker.nobodyAsker({ hint: cliAllowHint, why: `this A2A client cannot be asked (it did not activate the extension ${PERMISSION_QUESTIONS_EXTENSION})` }))
    )
  })
