import type { AgentDefinition } from "@dsh/agent"

/** An agent defined in code: a name, its system prompt, and (optionally) whom it may delegate to. */
export const agent = (name: string, systemPrompt: string, subagents?: ReadonlyArray<string>): AgentDefinition.AgentDefinition => ({
  name,
  description: `the ${name}`,
  systemPrompt,
  subagents,
  override: false,
  scope: "runtime",
  source: "example"
})
