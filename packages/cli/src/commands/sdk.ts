import { ModelRegistry } from "@dsh/llm"
import { serveSdk } from "@dsh/sdk"
import { Effect } from "effect"
import { resolve } from "node:path"
import { parseFlags } from "../Args.ts"
import { UsageError } from "../CliError.ts"
import type { CliContext } from "../Context.ts"
import { checkDirectory } from "../Directories.ts"
import { makeCliHost } from "../Host.ts"
import { cliVersion } from "./acp.ts"

const FLAGS = {
  agent: { type: "string" },
  model: { type: "string" },
  cwd: { type: "string" }
} as const

/**
 * `dsh sdk`: serves the dsh SDK protocol (JSON-RPC over stdio, see `@dsh/sdk`'s PROTOCOL.md)
 * until stdin closes, then exits by itself; every prompt still running is cancelled first.
 * stdout carries only frames. The flags are defaults for `session.create`; a bad `--cwd` or
 * `--model` is reported before anything is served (exit 2), so a parent sees the reason on stderr.
 */
export const sdkCommand = (args: ReadonlyArray<string>, ctx: CliContext) =>
  Effect.gen(function*() {
    const { values, positionals } = yield* parseFlags(args, FLAGS, "sdk")
    if (positionals.length > 0) {
      return yield* new UsageError({ message: `sdk: unexpected argument "${positionals[0]}" (dsh sdk [--agent NAME] [--model SPEC] [--cwd DIR])` })
    }
    const cwd = resolve(ctx.cwd, values.cwd ?? ".")
    yield* checkDirectory(cwd)
    if (values.model !== undefined) {
      const registry = yield* ModelRegistry
      yield* registry.resolve(values.model, { env: ctx.env, cwd })
    }
    const host = yield* makeCliHost({ ...ctx, cwd })
    yield* serveSdk(host, {
      input: ctx.stdin,
      output: ctx.stdout,
      serverInfo: { name: "dsh", version: cliVersion() },
      defaults: { cwd, agent: values.agent, model: values.model },
      // process.stdout stays open; the process exits once serving is over.
      endOutput: false
    })
  })
