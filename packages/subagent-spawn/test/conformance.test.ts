import { describe, it } from "@effect/vitest"
import type { AgentDefinition } from "@dsh/agent"
import { makeScriptedModel, type Script } from "@dsh/llm-scripted"
import { SessionStore } from "@dsh/session"
import { MemorySessionStore } from "@dsh/session/testing"
import { makeSubagents, makeSubagentTree } from "@dsh/subagent"
import { conformanceChecks, conformanceScript } from "@dsh/subagent/testing"
import { Effect } from "effect"
import { SpawnProvider } from "../src/index.ts"

const coder: AgentDefinition = {
  name: "coder",
  description: "writes code",
  systemPrompt: "You are a coder.",
  override: false,
  scope: "builtin",
  source: "builtin:coder"
}

const env = Effect.gen(function*() {
  const store = yield* SessionStore
  const session = yield* store.create({ agent: "agent", cwd: "/tmp", model: "scripted:conformance" })
  const model = makeScriptedModel(conformanceScript as unknown as Script, "conformance")
  const tree = yield* makeSubagentTree({ session, childContext: () => Effect.succeed({ tools: [], systemPrompt: "You are a coder." }) })
  const subagents = yield* makeSubagents({
    tree,
    providers: [SpawnProvider],
    types: [{ name: "coder", description: "writes code", provider: "spawn", definition: coder }]
  })
  return { subagents, parent: { handle: "main", depth: 0, cwd: "/tmp", model }, agentType: "coder" }
})

describe("subagent-spawn conformance", () => {
  for (const check of conformanceChecks) {
    it.live(check.name, () =>
      env.pipe(
        Effect.flatMap((e) => check.run(e)),
        Effect.mapError((e) => new Error(typeof e === "string" ? e : e.message)),
        Effect.scoped,
        Effect.provide(MemorySessionStore.layer)
      ))
  }
})
