import { configLayer } from "@dsh/harness"
import { AnthropicAdapter } from "@dsh/llm-anthropic"
import { OpenAIAdapter } from "@dsh/llm-openai"
import { ModelRegistry } from "@dsh/llm"
import { ScriptedAdapter } from "@dsh/llm-scripted"
import { FileSessionStore } from "@dsh/session"
import { LocalProcessLauncher } from "@dsh/subprocess"
import { Effect, Layer } from "effect"
import { join } from "node:path"
import { loadConfig } from "./Config.ts"
import type { CliContext } from "./Context.ts"
import { dshHarnessLayer } from "./DshHarness.ts"
import { cliLoggerLayer } from "./Logger.ts"
import type { PermissionFlags } from "./Permissions.ts"

/** The services every command runs with: models, the file session store, local processes, logs. */
export const cliLayer = (ctx: CliContext) =>
  Layer.mergeAll(
    ModelRegistry.layerWith([ScriptedAdapter, OpenAIAdapter, AnthropicAdapter]),
    FileSessionStore.layer({ home: ctx.home }),
    LocalProcessLauncher.layer(),
    cliLoggerLayer({ file: join(ctx.home, "logs", "dsh.log"), stderr: ctx.stderr })
  )

/**
 * What commands that run agents add, from config.toml: the host (the reference harness), the
 * tree limits and the model retry policy; the permission flags of this invocation join the
 * configured rules. A malformed config is a usage error here.
 */
export const hostLayer = (ctx: CliContext, flags?: PermissionFlags | undefined) =>
  Layer.unwrap(Effect.map(loadConfig(ctx.home), (config) =>
    dshHarnessLayer(ctx, config, flags).pipe(Layer.provideMerge(configLayer(config)))))
