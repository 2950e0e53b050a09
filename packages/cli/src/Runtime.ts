import { configLayer } from "@dsh/harness"
import { AnthropicAdapter } from "@dsh/llm-anthropic"
import { OpenAIAdapter } from "@dsh/llm-openai"
import { ModelRegistry } from "@dsh/llm"
import { ScriptedAdapter } from "@dsh/llm-scripted"
import { FileSessionStore } from "@dsh/session"
import { LocalProcessLauncher } from "@dsh/subprocess"
import { Effect, Layer } from "effect"
import { join } from "node:path"
import { loadHostConfig } from "./Config.ts"
import type { CliContext } from "./Context.ts"
import { dshHarnessLayer } from "./DshHarness.ts"
import { cliLoggerLayer } from "./Logger.ts"

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
 * tree limits and the model retry policy. A malformed config (an invalid `[acp.agents.*]`
 * entry included) is a usage error here.
 */
export const hostLayer = (ctx: CliContext) =>
  Layer.unwrap(Effect.map(loadHostConfig(ctx.home), ({ config, acpAgents }) =>
    dshHarnessLayer(ctx, config, acpAgents).pipe(Layer.provideMerge(configLayer(config)))))
