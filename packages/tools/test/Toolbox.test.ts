import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { z } from "zod"
import { Approval, approvalFromRules, compilePolicy, defineTool, makeToolbox, policyWarnings, toolFail } from "../src/index.ts"

const echo = defineTool({
  name: "echo",
  description: "Echoes.",
  parameters: z.object({ text: z.string().describe("what to echo") }),
  execute: ({ text }) => (text === "fail" ? toolFail("asked to fail") : text === "crash" ? Effect.die(new Error("boom")) : Effect.succeed(text.repeat(1)))
})
const danger = defineTool({
  name: "danger",
  description: "Needs approval.",
  needsApproval: true,
  parameters: z.object({}),
  execute: () => Effect.succeed("done")
})
const mcp = defineTool({ name: "mcp__github__search", description: "MCP", parameters: z.object({}), execute: () => Effect.succeed("found") })
const ctx = { cwd: "/tmp", agent: "main" }
const call = (name: string, args: string) => ({ id: "1", name, arguments: args })

describe("Toolbox", () => {
  it.effect("every failure is a result the model can read, never a crash", () =>
    Effect.gen(function*() {
      const box = makeToolbox({ tools: [echo] })
      assert.strictEqual((yield* box.execute(call("echo", "{\"text\":\"hi\"}"), ctx)).content, "hi")
      assert.include((yield* box.execute(call("nope", "{}"), ctx)).content, "unknown tool \"nope\". Available tools: echo")
      assert.include((yield* box.execute(call("echo", "{not json"), ctx)).content, "not valid JSON")
      assert.include((yield* box.execute(call("echo", "{\"text\":3}"), ctx)).content, "invalid arguments for echo: text:")
      const failed = yield* box.execute(call("echo", "{\"text\":\"fail\"}"), ctx)
      assert.deepStrictEqual([failed.content, failed.isError], ["Error: asked to fail", true])
      assert.include((yield* box.execute(call("echo", "{\"text\":\"crash\"}"), ctx)).content, "echo crashed")
    }))

  it.effect("output is truncated in one place, with a note", () =>
    Effect.gen(function*() {
      const box = makeToolbox({ tools: [echo], maxOutputChars: 5 })
      const r = yield* box.execute(call("echo", "{\"text\":\"abcdefghij\"}"), ctx)
      assert.strictEqual(r.content, "abcde\n… [output truncated: 5 more characters]")
    }))

  it.effect("the policy filters what is offered and is checked again at execution", () =>
    Effect.gen(function*() {
      const box = makeToolbox({ tools: [echo, danger, mcp], policy: { tools: ["echo", "mcp__github__*"], disallowedTools: ["echo"] } })
      assert.deepStrictEqual(box.specs.map((s) => s.name), ["mcp__github__search"])
      assert.include((yield* box.execute(call("echo", "{\"text\":\"x\"}"), ctx)).content, "unknown tool \"echo\"")
      assert.strictEqual((yield* box.execute(call("mcp__github__search", "{}"), ctx)).content, "found")
    }))

  it.effect("tools that need approval ask the Approval of the calling fiber", () =>
    Effect.gen(function*() {
      const box = makeToolbox({ tools: [danger] })
      assert.strictEqual((yield* box.execute(call("danger", "{}"), ctx)).content, "done")
      const denied = yield* box.execute(call("danger", "{}"), ctx).pipe(Effect.provideService(Approval, approvalFromRules({ allow: ["Read"] })))
      assert.include(denied.content, "permission denied: danger needs approval and this run is not interactive")
      const allowed = yield* box.execute(call("danger", "{}"), ctx).pipe(Effect.provideService(Approval, approvalFromRules({ allow: ["dan*"] })))
      assert.strictEqual(allowed.content, "done")
    }))

  it("policy patterns that can never match are reported", () => {
    const warnings = policyWarnings({ tools: ["Re*", "mcp__github", "Nope", "mcp__github__*"] }, ["Read"])
    assert.strictEqual(warnings.length, 3)
    assert.isTrue(compilePolicy({ tools: ["*"], disallowedTools: ["Bash"] })("Read"))
    assert.isFalse(compilePolicy({ tools: ["*"], disallowedTools: ["Bash"] })("Bash"))
  })
})
