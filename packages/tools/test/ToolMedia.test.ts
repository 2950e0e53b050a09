import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { z } from "zod"
import { Tool, Toolbox } from "../src/index.ts"

const shot = Tool.defineTool({
  name: "Shot",
  description: "Takes a screenshot.",
  parameters: z.object({}),
  execute: () => Effect.succeed({ content: "the screen", media: [{ type: "image", mediaType: "image/png", data: "AAAA" }] })
})
const ctx = { cwd: "/tmp", agent: "main" }

describe("tool results with media", () => {
  it.effect("a result's images become parts after its text; a text-only result has no parts", () =>
    Effect.gen(function*() {
      const box = Toolbox.make({ tools: [shot] })
      const result = yield* box.execute({ id: "c1", name: "Shot", arguments: "{}" }, ctx)
      assert.deepStrictEqual(result, {
        role: "tool",
        toolCallId: "c1",
        name: "Shot",
        content: "the screen",
        parts: [{ type: "text", text: "the screen" }, { type: "image", mediaType: "image/png", data: "AAAA" }]
      })
      const missing = yield* box.execute({ id: "c2", name: "Nope", arguments: "{}" }, ctx)
      assert.notProperty(missing, "parts")
    }))
})
