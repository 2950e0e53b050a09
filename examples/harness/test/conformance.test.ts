// (d) The exported provider conformance checks, run against a tiny provider of our own: a
// backend that "runs" children by echoing, which is all the checks need to see.
import type { AgentDefinition } from "@dsh/agent"
import { makeUsage } from "@dsh/core"
import { makeScriptedModel } from "@dsh/llm-scripted"
import { type ChildOutcome, makeSubagents, makeSubagentTree, type SubagentProvider } from "@dsh/subagent"
import { CONFORMANCE_PROMPTS, conformanceChecks } from "@dsh/subagent/testing"
import { Effect } from "effect"
import { describe, it } from "vitest"

/** The provider under test. A real one would talk to a process, a queue or a service. */
const echoProvider: SubagentProvider = {
  name: "echo",
  description: "answers by echoing its prompt",
  start: ({ request }): Effect.Effect<ChildOutcome> => {
    if (request.prompt === CONFORMANCE_PROMPTS.hang) return Effect.never
    if (request.prompt === CONFORMANCE_PROMPTS.fail) {
      return Effect.succeed({ status: "failed", output: "", usage: makeUsage(1, 0), notes: "asked to fail" })
    }
    const token = request.prompt.split(" ").at(-1) ?? ""
    return Effect.succeed({ status: "completed", output: `echo ${token}`, usage: makeUsage(3, 2) })
  }
}

const definition: AgentDefinition = { name: "echoer", description: "echoes", systemPrompt: "", override: false, scope: "runtime", source: "test" }

const env = Effect.gen(function*() {
  const model = makeScriptedModel({ rules: [] })
  const tree = yield* makeSubagentTree({ defaultModel: model, childContext: () => Effect.succeed({ tools: [], systemPrompt: "" }) })
  const subagents = yield* makeSubagents({
    tree,
    providers: [echoProvider],
    types: [{ name: "echoer", description: "echoes", provider: "echo", definition }]
  })
  return { subagents, parent: { handle: "main", depth: 0, cwd: "/", model }, agentType: "echoer" }
})

describe("echo provider conformance", () => {
  for (const check of conformanceChecks) {
    it(check.name, () => env.pipe(Effect.flatMap(check.run), Effect.scoped, Effect.runPromise))
  }
})
