// (d) The exported provider conformance suite, run against a tiny provider of our own: a
// backend that "runs" children by echoing, which is all the one-shot checks need to see.
import { Usage } from "@dsh/core"
import { ScriptedModel } from "@dsh/llm-scripted"
import { Subagents, SubagentTree, type Vocabulary } from "@dsh/subagent"
import { SubagentProviderSuite } from "@dsh/subagent/conformance"
import { Conformance, Fixtures } from "@dsh/subagent/testing"
import { Effect } from "effect"

/** The provider under test. A real one would talk to a process, a queue or a service. */
const echoProvider: Vocabulary.SubagentProvider = {
  specificationVersion: "v1",
  name: "echo",
  description: "answers by echoing its prompt",
  start: ({ request }): Effect.Effect<Vocabulary.ChildOutcome> => {
    switch (request.prompt) {
      case Conformance.CONFORMANCE_PROMPTS.hang:
        return Effect.never
      case Conformance.CONFORMANCE_PROMPTS.fail:
        return Effect.succeed({ status: "failed", output: "", usage: Usage.make(1, 0), notes: "asked to fail" })
      case Conformance.CONFORMANCE_PROMPTS.crash:
        return Effect.die(new Error("the echo backend crashed"))
      default:
        return Effect.succeed({ status: "completed", output: `echo ${request.prompt.split(" ").at(-1)}`, usage: Usage.make(3, 2) })
    }
  }
}

const env = Effect.gen(function*() {
  const model = ScriptedModel.make({ rules: [] })
  const tree = yield* SubagentTree.make({ defaultModel: model, childContext: () => Effect.succeed({ tools: [], systemPrompt: "" }) })
  const subagents = yield* Subagents.make({ tree, providers: [echoProvider], types: [Fixtures.testType("echoer", "echo")] })
  return { subagents, parent: Fixtures.testParent(model), agentType: "echoer" }
})

SubagentProviderSuite.subagentProviderSuite("echo", env)
