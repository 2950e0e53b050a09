import { lazyAdapter, ModelRegistry } from "@dsh/llm"
import { FileSessionStore } from "@dsh/session"
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

/** The services every command runs with: models, the file session store, local processes, logs. */
export const cliLayer = (ctx: CliContext) =>
  Layer.mergeAll(
    ModelRegistry.layerWith(ADAPTERS),
    FileSessionStore.layer({ home: ctx.home }),
    LocalProcessLauncher.layer(),
    cliLoggerLayer({ file: join(ctx.home, "logs", "dsh.log"), stderr: ctx.stderr })
  )
