import type { AgentHost } from "@dsh/agent"
import { DshModels } from "@dsh/kit/dsh"
import { ModelRegistry } from "@dsh/llm"
import { Effect } from "effect"
import { resolve } from "node:path"
import { parseFlags } from "./Args.ts"
import { UsageError } from "./CliError.ts"
import type { CliContext } from "./Context.ts"
import { checkDirectory } from "./Directories.ts"
import { hostLayer, loadCheckedConfig } from "./Host.ts"
import { PERMISSION_FLAGS, readPermissionFlags } from "./Permissions.ts"

const FLAGS = {
  agent: { type: "string" },
  model: { type: "string" },
  cwd: { type: "string" },
  ...PERMISSION_FLAGS
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
    const permissions = yield* readPermissionFlags(values)
    yield* checkDirectory(cwd)
    if (values.model !== undefined) {
      // With config.toml's `[models]` aliases, as the sessions will resolve it.
      const { config } = yield* loadCheckedConfig(ctx)
      const model = values.model
      yield* Effect.gen(function*() {
        const registry = yield* ModelRegistry.ModelRegistry
        return yield* registry.resolve(model, { env: ctx.env, cwd })
      }).pipe(Effect.provide(DshModels.registryLayer(config, { ...ctx, cwd })))
    }
    const serve = <A, E>(effect: Effect.Effect<A, E, AgentHost.AgentHost>) => effect.pipe(Effect.provide(hostLayer({ ...ctx, cwd }, permissions)))
    return { serve, cwd, agent: values.agent, model: values.model }
  })
