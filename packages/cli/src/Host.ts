import { configLayer } from "@dsh/harness"
import { Effect, Layer } from "effect"
import { loadHostConfig } from "./Config.ts"
import type { CliContext } from "./Context.ts"
import { dshHarnessLayer } from "./DshHarness.ts"
import type { PermissionFlags } from "./Permissions.ts"

/**
 * What commands that run agents add, from config.toml: the host (the reference harness), the
 * tree limits and the model retry policy; the permission flags of this invocation join the
 * configured rules. A malformed config (an invalid `[acp.agents.*]` entry included) is a usage
 * error here.
 */
export const hostLayer = (ctx: CliContext, flags?: PermissionFlags | undefined) =>
  Layer.unwrap(Effect.map(loadHostConfig(ctx.home), ({ config, acpAgents }) =>
    dshHarnessLayer(ctx, config, acpAgents, flags).pipe(Layer.provideMerge(configLayer(config)))))
