import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { z } from "zod"
import type { Events } from "@dsh/core"
import { Asker, Permissions, Tool, Toolbox, ToolPolicy } from "../src/index.ts"

const echo = Tool.defineTool({
  name: "echo",
  description: "Echoes.",
  parameters: z.object({ text: z.string().describe("what to echo") }),
  execute: ({ text }) => (text === "fail" ? Tool.toolFail("asked to fail") : text === "crash" ? Effect.die(new Error("boom")) : Effect.succeed(text.repeat(1)))
})
const danger = Tool.defineTool({
  name: "danger",
  description: "Needs approval.",
  needsApproval: true,
  parameters: z.object({}),
  execute: () => Effect.succeed("done")
})
const mcp = Tool.defineTool({ name: "mcp__github__search", description: "MCP", parameters: z.object({}), execute: () => Effect.succeed("found") })
const ctx = { cwd: "/tmp", agent: "main" }
const call = (name: string, args: string) => ({ id: "1", name, arguments: args })

describe("Toolbox", () => {
  it.effect("every failure is a result the model can read, never a crash", () =>
    Effect.gen(function*() {
      const box = Toolbox.make({ tools: [echo] })
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
      const box = Toolbox.make({ tools: [echo], maxOutputChars: 5 })
      const r = yield* box.execute(call("echo", "{\"text\":\"abcdefghij\"}"), ctx)
      assert.strictEqual(r.content, "abcde\n… [output truncated: 5 more characters]")
    }))

  it.effect("the policy filters what is offered and is checked again at execution", () =>
    Effect.gen(function*() {
      const box = Toolbox.make({ tools: [echo, danger, mcp], policy: { tools: ["echo", "mcp__github__*"], disallowedTools: ["echo"] } })
      assert.deepStrictEqual(box.specs.map((s) => s.name), ["mcp__github__search"])
      assert.include((yield* box.execute(call("echo", "{\"text\":\"x\"}"), ctx)).content, "unknown tool \"echo\"")
      assert.strictEqual((yield* box.execute(call("mcp__github__search", "{}"), ctx)).content, "found")
    }))

  it.effect("every call asks the Permissions of the calling fiber and records the decision in the turn", () =>
    Effect.gen(function*() {
      const box = Toolbox.make({ tools: [danger, echo] })
      // Without rules (the default) everything runs, as before.
      assert.strictEqual((yield* box.execute(call("danger", "{}"), ctx)).content, "done")
      const events: Array<Events.AgentEvent> = []
      const turn = { emit: (e: Events.AgentEvent) => Effect.sync(() => void events.push(e)), conversation: Effect.succeed([]), systemPrompt: "" }
      const strict = yield* Permissions.make({ mode: "default" })
      const denied = yield* box.execute(call("danger", "{}"), { ...ctx, turn }).pipe(Effect.provideService(Permissions.Permissions, strict))
      assert.include(denied.content, "permission denied: danger needs approval (mode: default) and no one can be asked in this run")
      const read = yield* box.execute(call("echo", "{\"text\":\"hi\"}"), { ...ctx, turn }).pipe(Effect.provideService(Permissions.Permissions, strict))
      assert.strictEqual(read.content, "hi")
      assert.deepStrictEqual(events, [
        { type: "permission", id: "1", subject: "danger", decision: "denied", via: "asked", rule: "mode: default", by: "none" },
        { type: "permission", id: "1", subject: "echo", decision: "allowed", via: "mode", rule: "mode: default" }
      ])
      const allowed = yield* box.execute(call("danger", "{}"), ctx).pipe(
        Effect.provideService(Permissions.Permissions, yield* Permissions.make({ allow: ["dan*"] }))
      )
      assert.strictEqual(allowed.content, "done")
      const answered = yield* box.execute(call("danger", "{}"), ctx).pipe(
        Effect.provideService(Permissions.Permissions, strict),
        Effect.provideService(Asker.Asker, { ask: () => Effect.succeed({ allow: true, by: "user" }) })
      )
      assert.strictEqual(answered.content, "done")
    }))

  it("policy patterns that can never match are reported", () => {
    const warnings = ToolPolicy.policyWarnings({ tools: ["Re*", "mcp__github", "Nope", "mcp__github__*"] }, ["Read"])
    assert.strictEqual(warnings.length, 3)
    assert.isTrue(ToolPolicy.compilePolicy({ tools: ["*"], disallowedTools: ["Bash"] })("Read"))
    assert.isFalse(ToolPolicy.compilePolicy({ tools: ["*"], disallowedTools: ["Bash"] })("Bash"))
  })
})
