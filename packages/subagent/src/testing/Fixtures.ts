import type { AgentDefinition } from "@dsh/agent"
import type { LanguageModel } from "@dsh/llm"
import type { AgentType, ParentInfo } from "../Vocabulary.ts"

/** An agent definition for tests: `name`, an empty prompt, everything allowed unless overridden. */
export const testDefinition = (name: string, overrides: Partial<AgentDefinition.AgentDefinition> = {}): AgentDefinition.AgentDefinition => ({
  name,
  description: `${name} agent`,
  systemPrompt: "",
  override: false,
  scope: "runtime",
  source: `test:${name}`,
  ...overrides
})

/** An agent type for tests, on `provider` (default `fixture`). */
export const testType = (name: string, provider = "fixture", overrides: Partial<AgentDefinition.AgentDefinition> = {}): AgentType => ({
  name,
  description: `${name} agent`,
  provider,
  definition: testDefinition(name, overrides)
})

/** The main agent as a parent (depth 0, handle `main`), with its definition's allow-list. */
export const testParent = (model: LanguageModel.LanguageModelShape, overrides: Partial<ParentInfo> = {}): ParentInfo => ({
  handle: "main",
  depth: 0,
  cwd: process.cwd(),
  model,
  definition: testDefinition("main"),
  ...overrides
})
