import { createAnthropic } from "@ai-sdk/anthropic"
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { FakeAnthropicServer } from "@dsh/llm-anthropic/testing"
import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import type { ModelRegistry } from "@dsh/llm"
import { ModelAdapterSuite } from "@dsh/llm/conformance"
import { AiSdkAdapter } from "../src/index.ts"

// Real AI SDK providers over the same fakes the hand-written adapters run against: the bridge
// must stream, assemble tool calls, retry, map errors and abort as they do.
const over = (name: string, build: (baseURL: string, apiKey: string) => Parameters<typeof AiSdkAdapter.aiSdkAdapter>[0]["provider"]): ModelRegistry.ModelAdapter => ({
  name,
  description: `AI SDK ${name} over a fake`,
  create: (model, config) => AiSdkAdapter.aiSdkAdapter({ name, provider: build(config.baseUrl ?? "", config.apiKey ?? "") }).create(model, config)
})

ModelAdapterSuite.modelAdapterSuite("aiSdkAdapter over @ai-sdk/openai-compatible", {
  adapter: over("compat", (baseURL, apiKey) => createOpenAICompatible({ name: "compat", baseURL, apiKey, includeUsage: true })),
  startServer: FakeOpenAIServer.startFakeOpenAIServer
})

ModelAdapterSuite.modelAdapterSuite("aiSdkAdapter over @ai-sdk/anthropic", {
  adapter: over("claude", (baseURL, apiKey) => createAnthropic({ baseURL: `${baseURL.replace(/\/$/, "")}/v1`, apiKey })),
  startServer: FakeAnthropicServer.startFakeAnthropicServer,
  // A model the provider knows, so it does not warn that it capped the output.
  model: "claude-sonnet-4-5"
})
