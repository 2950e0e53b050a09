import { assert, describe, it } from "@effect/vitest"
import type { Vocabulary } from "@dsh/subagent"
import { Toolbox } from "@dsh/tools"
import { Effect } from "effect"
import { ReportTool } from "../src/index.ts"

const setup = (resultSchema?: Record<string, unknown>) => {
  const reports: Array<Vocabulary.ReportedResult> = []
  const tool = ReportTool.make({ report: (r) => Effect.sync(() => void reports.push(r)), resultSchema })
  return { reports, toolbox: Toolbox.make({ tools: [tool] }) }
}
const call = (args: unknown) => ({ id: "r1", name: "report", arguments: JSON.stringify(args) })
const ctx = { cwd: "/tmp", agent: "coder-1" }

describe("the report tool", () => {
  it.effect("hands the text to the parent", () =>
    Effect.gen(function*() {
      const { reports, toolbox } = setup()
      const r = yield* toolbox.execute(call({ result: "all done" }), ctx)
      assert.isUndefined(r.isError)
      assert.deepStrictEqual(reports, [{ text: "all done" }])
    }))

  it.effect("validates JSON against the schema the parent asked for", () =>
    Effect.gen(function*() {
      const { reports, toolbox } = setup({ type: "object", properties: { count: { type: "number" } }, required: ["count"] })
      const missing = yield* toolbox.execute(call({ result: "x" }), ctx)
      assert.include(missing.content, "pass `json`")
      const wrong = yield* toolbox.execute(call({ result: "x", json: { count: "three" } }), ctx)
      assert.isTrue(wrong.isError)
      assert.include(wrong.content, "does not match the requested schema")
      const ok = yield* toolbox.execute(call({ result: "x", json: { count: 3 } }), ctx)
      assert.isUndefined(ok.isError)
      assert.deepStrictEqual(reports, [{ text: "x", json: { count: 3 } }])
    }))

  it.effect("shows the model the parent's JSON Schema as the parameters of json", () =>
    Effect.sync(() => {
      const schema = { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: { count: { type: "number" } }, required: ["count"] }
      const json = (setup(schema).toolbox.specs[0]?.parameters as { properties: Record<string, unknown> }).properties.json
      assert.deepStrictEqual(json, { type: "object", properties: { count: { type: "number" } }, required: ["count"], description: "The structured result, matching the parent's JSON Schema (required)" })
      const plain = (setup().toolbox.specs[0]?.parameters as { properties: Record<string, unknown> }).properties.json
      assert.deepStrictEqual(plain, { description: "Structured result, when the parent asked for one" })
    }))
})
