import { makeAgentContext } from "@dsh/harness"
import { makeScriptedModel, type Script } from "@dsh/llm-scripted"
import { MemorySessionStore, SessionStore } from "@dsh/session"
import { subagentProviderSuite } from "@dsh/subagent/conformance"
import { conformanceScript, testDefinition } from "@dsh/subagent/testing"
import { Effect } from "effect"
import { SpawnProvider } from "../src/index.ts"

/** Real in-process children on the conformance script, in a session of the memory store. */
const env = Effect.gen(function*() {
  const session = yield* (yield* SessionStore).create({ agent: "main", cwd: "/tmp", model: "scripted:conformance" })
  const model = makeScriptedModel(conformanceScript as unknown as Script, "conformance")
  const { subagents, parent } = yield* makeAgentContext({
    backends: [SpawnProvider],
    delegates: [testDefinition("coder")],
    model,
    session,
    cwd: "/tmp",
    limits: { maxDepth: 2 }
  })
  return { subagents, parent, agentType: "coder" }
}).pipe(Effect.provide(MemorySessionStore.layer))

subagentProviderSuite("spawn", env, { continue: true, messages: true, report: true, nesting: true, progress: true })
