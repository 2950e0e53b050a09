import { ModelRegistry } from "@dsh/llm"
import { Effect } from "effect"
import { resolve } from "node:path"
import { parseFlags } from "./Args.ts"
import { UsageError } from "./CliError.ts"
import type { CliContext } from "./Context.ts"
import { checkDirectory } from "./Directories.ts"
import { makeCliHost } from "./Host.ts"

const FLAGS = {
  agent: { type: "string" },
  model: { type: "string" },
  cwd: { type: "string" }
} as const

/**
 * What `dsh acp` and `dsh sdk` do before serving on stdio: parse `[--agent NAME] [--model SPEC]
 * [--cwd DIR]` (no positionals), then check `--cwd` and `--model` before anything is served, so a
 * bad one is a usage error (exit 2) whose reason a parent sees on stderr; then build the host.
 * The flags are returned as the defaults for the sessions the protocol creates.
 */
export const prepareProtocolServe = (command: "acp" | "sdk", args: ReadonlyArray<string>, ctx: CliContext) =>
  Effect.gen(function*() {
    const { values, positionals } = yield* parseFlags(args, FLAGS, command)
    if (positionals.length > 0) {
      return yield* new UsageError({
        message: `${command}: unexpected argument "${positionals[0]}" (dsh ${command} [--agent NAME] [--model SPEC] [--cwd DIR])`
      })
    }
    const cwd = resolve(ctx.cwd, values.cwd ?? ".")
    yield* checkDirectory(cwd)
    if (values.model !== undefined) {
      const registry = yield* ModelRegistry
      yield* registry.resolve(values.model, { env: ctx.env, cwd })
    }
    const host = yield* makeCliHost({ ...ctx, cwd })
    return { host, cwd, agent: values.agent, model: values.model }
  })
