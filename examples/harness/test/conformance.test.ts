// (d) The exported provider conformance suite, run against a tiny provider of our own: a
// backend that "runs" children by echoing, which is all the one-shot checks need to see.
import { makeUsage } from "@dsh/core"
import { makeScriptedModel } from "@dsh/llm-scripted"
import { type ChildOutcome, makeSubagents, makeSubagentTree, type SubagentProvider } from "@dsh/subagent"
import { subagentProviderSuite } from "@dsh/subagent/conformance"
import { CONFORMANCE_PROMPTS, testParent, testType } from "@dsh/subagent/testing"
import { Effect } from "effect"

/** The provider under test. A real one would talk to a process, a queue or a service. */
const echoProvider: SubagentProvider = {
  specificationVersion: "v1",
  name: "echo",
  description: "answers by echoing its prompt",
  start: ({ request }): Effect.Effect<ChildOutcome> => {
    switch (request.prompt) {
      case CONFORMANCE_PROMPTS.hang:
        return Effect.never
      case CONFORMANCE_PROMPTS.fail:
        return Effect.succeed({ status: "failed", output: "", usage: makeUsage(1, 0), notes: "asked to fail" })
      case CONFORMANCE_PROMPTS.crash:
        return Effect.die(new Error("the echo backend crashed"))
      default:
        return Effect.succeed({ status: "completed", output: `echo ${request.prompt.split(" ").at(-1)}`, usage: makeUsage(3, 2) })
    }
  }
}

const env = Effect.gen(function*() {
  const model = makeScriptedModel({ rules: [] })
  const tree = yield* makeSubagentTree({ defaultModel: model, childContext: () => Effect.succeed({ tools: [], systemPrompt: "" }) })
  const subagents = yield* makeSubagents({ tree, providers: [echoProvider], types: [testType("echoer", "echo")] })
  return { subagents, parent: testParent(model), agentType: "echoer" }
})

subagentProviderSuite("echo", env)
