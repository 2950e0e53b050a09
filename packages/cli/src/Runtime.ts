import { providerAdapters } from "@dsh/harness"
import { lazyAdapter, type ModelAdapter, ModelRegistry } from "@dsh/llm"
import { ANTHROPIC_ALIASES, ANTHROPIC_MODEL_IDS } from "@dsh/llm-anthropic/names"
import { OPENAI_MODEL_IDS } from "@dsh/llm-openai/names"
import { divertStoreFailures, makeStoreTrouble, StoreTrouble } from "@dsh/session"
import { worktreesLayer } from "@dsh/subagent"
import { LocalProcessLauncher } from "@dsh/subprocess"
import { fileLogLayer } from "@dsh/telemetry/file-log"
import { Effect, Layer } from "effect"
import { join } from "node:path"
import type { DshConfig } from "./Config.ts"
import type { CliContext } from "./Context.ts"

/**
 * The model adapters, each loaded when a spec first names it: `dsh acp` on the scripted model
 * never loads the HTTP adapters, `dsh run --model openai:…` never loads Anthropic's. The names
 * they answer to (`sonnet`, `claude-*`, `gpt-*`) are known before they load.
 */
export const MODEL_ADAPTERS: ReadonlyArray<ModelAdapter> = [
  lazyAdapter({
    name: "scripted",
    description: "deterministic offline model driven by a JSON script",
    load: () => import("@dsh/llm-scripted").then((m) => m.ScriptedAdapter)
  }),
  lazyAdapter({
    name: "openai",
    description: "OpenAI-compatible Chat Completions (OpenAI, Ollama, vLLM, llama.cpp, Moonshot, OpenRouter)",
    modelIds: OPENAI_MODEL_IDS,
    load: () => import("@dsh/llm-openai").then((m) => m.OpenAIAdapter)
  }),
  lazyAdapter({
    name: "anthropic",
    description: "Anthropic Messages API (Claude), streaming with tool use",
    aliases: ANTHROPIC_ALIASES,
    modelIds: ANTHROPIC_MODEL_IDS,
    load: () => import("@dsh/llm-anthropic").then((m) => m.AnthropicAdapter)
  })
]

/**
 * The CLI's models with config.toml's `[models]` aliases (over the adapters' own `sonnet`, `opus`,
 * `haiku`) and its `[providers.<name>]` (installed AI SDK providers, found from `ctx`'s home and cwd).
 */
export const modelRegistryLayer = (config?: DshConfig, ctx?: Pick<CliContext, "home" | "cwd" | "env">) =>
  ModelRegistry.layerWith(
    [...MODEL_ADAPTERS, ...(config === undefined || ctx === undefined ? [] : providerAdapters(config.providers, ctx))],
    { aliases: config?.models.aliases }
  )

/**
 * The services every command runs with: models, local processes, logs. The session store is
 * the command's (`Store.ts`: `--store`, `DSH_STORE`, config, or the file store in `$DSH_HOME`).
 */
export const cliLayer = (ctx: CliContext) =>
  Layer.unwrap(Effect.sync(() => {
    const storeTrouble = makeStoreTrouble()
    const base = Layer.mergeAll(
      modelRegistryLayer(),
      // Git runs through the launcher too: children with `isolation: "worktree"` get theirs.
      Layer.provideMerge(worktreesLayer, LocalProcessLauncher.layer()),
      Layer.succeed(StoreTrouble, storeTrouble),
      fileLogLayer({ file: join(ctx.home, "logs", "dsh.log"), stderr: ctx.stderr, divert: divertStoreFailures(storeTrouble) })
    )
    // Built over the logger layer, so warnings reach both the local log and the exporter.
    return wantsTelemetry(ctx.env) ? Layer.provideMerge(telemetryLayer(ctx.env), base) : base
  }))

/** The standard OTLP endpoint variables: without one nothing is exported and `@dsh/telemetry` is never loaded. */
export const wantsTelemetry = (env: CliContext["env"]): boolean =>
  [env.OTEL_EXPORTER_OTLP_ENDPOINT, env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT].some((v) => v !== undefined && v.trim() !== "")

const telemetryLayer = (env: CliContext["env"]) =>
  Layer.unwrap(Effect.promise(() => import("@dsh/telemetry").then((m) => m.DshTelemetry.fromEnv(env))))
