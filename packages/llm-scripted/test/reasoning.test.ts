import { Messages } from "@dsh/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { ScriptedModel } from "../src/index.ts"

describe("scripted reasoning", () => {
  it.effect("a reply's reasoning streams as deltas, then one reasoning part, before the text", () =>
    Effect.gen(function*() {
      const model = ScriptedModel.make({ rules: [{ when: { lastUser: "(\\w+)$" }, reply: { reasoning: "about {{1}}", text: "answer" } }] })
      const parts = Array.from(yield* Stream.runCollect(model.stream({ messages: [Messages.userMessage("think cats")], tools: [] })))
      assert.deepStrictEqual(parts.filter((p) => p.type === "reasoning"), [
        { type: "reasoning", part: { type: "reasoning", text: "about cats", provider: "scripted", signature: "scripted" } }
      ])
      assert.strictEqual(parts[0]?.type, "reasoning-delta")
      const response = yield* model.generate({ messages: [Messages.userMessage("think cats")], tools: [] })
      assert.deepStrictEqual(response.message, {
        role: "assistant",
        content: "answer",
        reasoning: [{ type: "reasoning", text: "about cats", provider: "scripted", signature: "scripted" }]
      })
    }))
})
