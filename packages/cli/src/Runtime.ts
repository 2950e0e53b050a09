import { AnthropicAdapter } from "@dsh/llm-anthropic"
import { OpenAIAdapter } from "@dsh/llm-openai"
import { ModelRegistry } from "@dsh/llm"
import { ScriptedAdapter } from "@dsh/llm-scripted"
import { FileSessionStore } from "@dsh/session"
import { LocalProcessLauncher } from "@dsh/subprocess"
import { Layer } from "effect"

/** The services every command runs with: models, the file session store, local processes. */
export const cliLayer = (home: string) =>
  Layer.mergeAll(
    Layer.mergeAll(
      ModelRegistry.provide(ScriptedAdapter),
      ModelRegistry.provide(OpenAIAdapter),
      ModelRegistry.provide(AnthropicAdapter)
    ).pipe(Layer.provideMerge(ModelRegistry.layer)),
    FileSessionStore.layer({ home }),
    LocalProcessLauncher.layer()
  )
