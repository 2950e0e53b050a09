import type { AgentHost } from "@dsh/agent"
import { DshFlags, DshModels } from "@dsh/kit/dsh"
import { Effect } from "effect"
import { resolve } from "node:path"
import { parseFlags } from "./Args.ts"
import { UsageError } from "./CliError.ts"
import type { CliContext } from "./Context.ts"
import { hostLayer, loadCheckedConfig } from "./Host.ts"

const FLAGS = {
  agent: { type: "string" },
  model: { type: "string" },
  cwd: { type: "string" },
  ...DshFlags.PERMISSION_FLAGS
} as const

/**
 * What `dsh acp` and `dsh sdk` do before serving on stdio: parse `[--agent NAME] [--model SPEC]
 * [--cwd DIR]` and the permission flags (no positionals), then check `--cwd` and `--model` before anything is served, so a
 * bad one is a usage error (exit 2) whose reason a parent sees on stderr. The flags are the
 * defaults of the sessions the protocol creates; `serve` runs with the host of that directory.
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
    const permissions = yield* DshFlags.permissions(values)
    yield* DshFlags.directory(cwd)
    // With config.toml's `[models]` aliases, as the sessions will resolve it.
    if (values.model !== undefined) yield* DshModels.resolve({ ...ctx, cwd }, (yield* loadCheckedConfig(ctx)).config, values.model)
    const serve = <A, E>(effect: Effect.Effect<A, E, AgentHost.AgentHost>) => effect.pipe(Effect.provide(hostLayer({ ...ctx, cwd }, permissions)))
    return { serve, cwd, agent: values.agent, model: values.model }
  })
