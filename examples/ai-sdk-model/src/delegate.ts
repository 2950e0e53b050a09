// A dsh main agent that delegates to an in-process child, both on the model `local:<id>`
// of an AI SDK provider registered with `aiSdkAdapter`. The provider is a parameter, so the
// test can swap the real one for `MockLanguageModelV4`.
import { AgentCatalog, type AgentDefinition, AgentHost } from "@dsh/agent"
import { Harness } from "@dsh/harness"
import { ModelRegistry } from "@dsh/llm"
import { AiSdkAdapter } from "@dsh/llm-ai-sdk"
import { FileSessionStore } from "@dsh/session"
import { SpawnProvider } from "@dsh/subagent-inprocess"
import { Effect, Layer } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const agent = (name: string, systemPrompt: string): AgentDefinition.AgentDefinition => ({
  name,
  description: `the ${name}`,
  systemPrompt,
  override: false,
  scope: "runtime",
  source: "example"
})

/** Runs one prompt on a main agent (`lead`) that may delegate to `researcher`; resolves to its answer. */
export const delegate = (provider: AiSdkAdapter.AiSdkProvider, prompt: string): Promise<string> => {
  const host = Harness.layer({
    agents: () => Effect.succeed(AgentCatalog.staticCatalog({ main: agent("lead", "You lead."), delegates: [agent("researcher", "You research one question.")] })),
    backends: [SpawnProvider.SpawnProvider],
    model: "local:tiny-1"
  }).pipe(Layer.provide(Layer.mergeAll(
    FileSessionStore.layer({ home: mkdtempSync(join(tmpdir(), "dsh-ai-sdk-example-")) }),
    ModelRegistry.layerWith([AiSdkAdapter.aiSdkAdapter({ name: "local", provider })])
  )))
  const program = Effect.gen(function*() {
    const dsh = yield* AgentHost.AgentHost
    const session = yield* dsh.createSession({ cwd: process.cwd() })
    return (yield* dsh.prompt({ sessionId: session.id, prompt })).result
  })
  return Effect.runPromise(program.pipe(Effect.provide(host)))
}
