import { configLayer } from "@dsh/harness"
import { Effect, Layer } from "effect"
import { loadConfig } from "./Config.ts"
import type { CliContext } from "./Context.ts"
import { dshHarnessLayer } from "./DshHarness.ts"

/**
 * What commands that run agents add, from config.toml: the host (the reference harness), the
 * tree limits and the model retry policy. A malformed config is a usage error here.
 */
export const hostLayer = (ctx: CliContext) =>
  Layer.unwrap(Effect.map(loadConfig(ctx.home), (config) =>
    dshHarnessLayer(ctx, config).pipe(Layer.provideMerge(configLayer(config)))))
