import { AgentContext } from "@dsh/harness"
import { type Script, ScriptedModel } from "@dsh/llm-scripted"
import { MemorySessionStore, SessionStore } from "@dsh/session"
import { SubagentProviderSuite } from "@dsh/subagent/conformance"
import { Conformance, Fixtures } from "@dsh/subagent/testing"
import { Effect } from "effect"
import { SpawnProvider } from "../src/index.ts"

/** Real in-process children on the conformance script, in a session of the memory store. */
const env = Effect.gen(function*() {
  const session = yield* (yield* SessionStore.SessionStore).create({ agent: "main", cwd: "/tmp", model: "scripted:conformance" })
  const model = ScriptedModel.make(Conformance.conformanceScript as unknown as Script.Script, "conformance")
  const { subagents, parent } = yield* AgentContext.make({
    backends: [SpawnProvider.SpawnProvider],
    delegates: [Fixtures.testDefinition("coder")],
    model,
    session,
    cwd: "/tmp",
    limits: { maxDepth: 2 }
  })
  return { subagents, parent, agentType: "coder" }
}).pipe(Effect.provide(MemorySessionStore.layer))

SubagentProviderSuite.subagentProviderSuite("spawn", env, { continue: true, messages: true, report: true, nesting: true, progress: true })
