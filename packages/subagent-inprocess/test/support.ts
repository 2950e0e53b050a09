/** A real host for the tests that run one delegation end to end: a lead and a researcher, over a fake OpenAI server. */
import { AgentCatalog, type AgentDefinition } from "@dsh/agent"
import { Harness } from "@dsh/harness"
import { ModelRegistry } from "@dsh/llm"
import { OpenAIAdapter } from "@dsh/llm-openai"
import { FileSessionStore } from "@dsh/session"
import { Effect, Layer, ManagedRuntime } from "effect"
import { SpawnProvider } from "../src/index.ts"

/** A chat message as the fake server receives it. */
export type Message = { readonly role: string; readonly content?: unknown }

const agent = (name: string, systemPrompt: string): AgentDefinition.AgentDefinition => ({
  name,
  description: name,
  systemPrompt,
  override: false,
  scope: "runtime",
  source: "test"
})

/** A host over the file store in `home`: main agent `lead` ("You lead."), delegate `researcher` ("You research."). */
export const leadAndResearcher = (home: string, serverUrl: string) =>
  ManagedRuntime.make(
    Harness.layer({
      agents: () => Effect.succeed(AgentCatalog.staticCatalog({ main: agent("lead", "You lead."), delegates: [agent("researcher", "You research.")] })),
      backends: [SpawnProvider.SpawnProvider],
      tools: [],
      model: "openai:m",
      modelConfig: { baseUrl: serverUrl, apiKey: "sk" }
    }).pipe(Layer.provide(Layer.mergeAll(FileSessionStore.layer({ home }), ModelRegistry.layerWith([OpenAIAdapter.OpenAIAdapter]))))
  )
