import { lazyAdapter, ModelRegistry } from "@dsh/llm"
import { LocalProcessLauncher } from "@dsh/subprocess"
import { Layer } from "effect"
import { join } from "node:path"
import type { CliContext } from "./Context.ts"
import { cliLoggerLayer } from "./Logger.ts"

/**
 * The model adapters, each loaded when a spec first names it: `dsh acp` on the scripted model
 * never loads the HTTP adapters, `dsh run --model openai:…` never loads Anthropic's.
 */
const ADAPTERS = [
  lazyAdapter({
    name: "scripted",
    description: "deterministic offline model driven by a JSON script",
    load: () => import("@dsh/llm-scripted").then((m) => m.ScriptedAdapter)
  }),
  lazyAdapter({
    name: "openai",
    description: "OpenAI-compatible Chat Completions (OpenAI, Ollama, vLLM, llama.cpp, Moonshot, OpenRouter)",
    load: () => import("@dsh/llm-openai").then((m) => m.OpenAIAdapter)
  }),
  lazyAdapter({
    name: "anthropic",
    description: "Anthropic Messages API (Claude), streaming with tool use",
    load: () => import("@dsh/llm-anthropic").then((m) => m.AnthropicAdapter)
  })
]

/**
 * The services every command runs with: models, local processes, logs. The session store is
 * the command's (`Store.ts`: `--store`, `DSH_STORE`, config, or the file store in `$DSH_HOME`).
 */
export const cliLayer = (ctx: CliContext) =>
  Layer.mergeAll(
    ModelRegistry.layerWith(ADAPTERS),
    LocalProcessLauncher.layer(),
    cliLoggerLayer({ file: join(ctx.home, "logs", "dsh.log"), stderr: ctx.stderr })
  )
