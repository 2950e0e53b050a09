import { createSubagents } from "@dsh/kit"
import { ScriptedModel } from "@dsh/llm-scripted"
import { describe, expect, it } from "vitest"

// The child says which delegation tools its model was offered.
const model = ScriptedModel.make({
  rules: [
    { when: { system: "^You check", hasTool: "subagent" }, reply: { text: "offered subagent" } },
    { when: { system: "^You check" }, reply: { text: "no subagent" } }
  ]
})
const agents = {
  checker: { description: "says what it may do", instructions: "You check your tools." },
  helper: { description: "helps", instructions: "You help." }
}

describe("@dsh/kit limits", () => {
  it("by default only the lead delegates: a child is offered no subagent tool (limits.maxDepth 1)", async () => {
    await using kit = await createSubagents({ model, agents })
    expect((await kit.delegate({ agent: "checker", prompt: "which tools?" })).text).toBe("no subagent")
  })

  it("limits.maxDepth 2 lets a child with subagents delegate", async () => {
    await using kit = await createSubagents({ model, agents: { ...agents, checker: { ...agents.checker, subagents: ["helper"] } }, limits: { maxDepth: 2 } })
    expect((await kit.delegate({ agent: "checker", prompt: "which tools?" })).text).toBe("offered subagent")
  })
})
