// A harness's tests on node:test, in an app with no other test runner installed: the dsh
// fixtures replace the child boundary, and the provider conformance checks run as node tests.
import { LanguageModel } from "@dsh/llm"
import { MemorySessionStore, SessionStore } from "@dsh/session"
import { Subagents, SubagentTree } from "@dsh/subagent"
import { Conformance, FixtureProvider, Fixtures } from "@dsh/subagent/testing"
import { Effect, Stream } from "effect"
import assert from "node:assert/strict"
import { readdirSync, readFileSync } from "node:fs"
import { test } from "node:test"

const DSH = new URL("../node_modules/@dsh/", import.meta.url)

/** Every installed `@dsh` package, with its manifest's export keys. */
const installed = readdirSync(DSH).map((dir) => {
  const manifest = JSON.parse(readFileSync(new URL(`${dir}/package.json`, DSH), "utf8"))
  return { name: manifest.name, exports: Object.keys(manifest.exports ?? {}) }
})

// The parent's model is never asked anything here: the fixture answers for the child.
const model = LanguageModel.make({ provider: "none", model: "none", stream: () => Stream.empty })
const childContext = () => Effect.succeed({ tools: [], systemPrompt: "" })

test("no test runner is installed", async () => {
  for (const runner of ["vitest", "@effect/vitest", "jest"]) {
    await assert.rejects(import(runner), { code: "ERR_MODULE_NOT_FOUND" }, runner)
  }
})

test("every @dsh/*/testing entry imports", async () => {
  const entries = installed.filter((p) => p.exports.includes("./testing")).map((p) => `${p.name}/testing`)
  assert.ok(entries.includes("@dsh/subagent/testing") && entries.includes("@dsh/session/testing"), entries.join(", "))
  for (const entry of entries) {
    const module = await import(entry)
    assert.ok(Object.keys(module).length > 0, `${entry} exports something`)
    console.log(`imported ${entry}`)
  }
})

test("the vitest suites (…/conformance) are what needs vitest, and they say so", async () => {
  const entries = installed.filter((p) => p.exports.includes("./conformance")).map((p) => `${p.name}/conformance`)
  assert.ok(entries.includes("@dsh/subagent/conformance"), entries.join(", "))
  for (const entry of entries) {
    await assert.rejects(import(entry), (e) => e.code === "ERR_MODULE_NOT_FOUND" && e.message.includes("'vitest'"), entry)
  }
})

test("a fixture provider runs a child through @dsh/subagent, in the memory store", async () => {
  const fixture = FixtureProvider.make({ reply: ({ prompt }) => ({ output: `done: ${prompt}`, tokens: 5 }) })
  const program = Effect.gen(function*() {
    const session = yield* (yield* SessionStore.SessionStore).create({ agent: "lead", cwd: process.cwd(), model: "none" })
    const tree = yield* SubagentTree.make({ session, defaultModel: model, childContext })
    const subagents = yield* Subagents.make({ tree, providers: [fixture], types: [Fixtures.testType("coder")] })
    const result = yield* subagents.spawn({ prompt: "fix the bug", description: "fix", agent: "coder" }, Fixtures.testParent(model))
    const child = yield* session.child(result.handle)
    const { records } = yield* child.transcript.read
    return { result, said: records.filter((r) => r.type === "message").map((r) => r.message.content) }
  })
  const { result, said } = await Effect.runPromise(Effect.scoped(program).pipe(Effect.provide(MemorySessionStore.layer)))
  assert.equal(result.handle, "coder-1")
  assert.equal(result.status, "completed")
  assert.equal(result.output, "done: fix the bug")
  assert.equal(result.usage.totalTokens, 5)
  assert.deepEqual(fixture.calls, [{ kind: "start", handle: "coder-1", prompt: "fix the bug", agent: "coder" }])
  assert.deepEqual(said, ["fix the bug", "done: fix the bug"])
})

// The conformance checks every backend must pass, here against a fixture-backed "backend".
const echo = FixtureProvider.make({
  name: "echo",
  reply: ({ prompt }) => {
    switch (prompt) {
      case Conformance.CONFORMANCE_PROMPTS.hang:
        return { hang: true }
      case Conformance.CONFORMANCE_PROMPTS.fail:
        return { output: "", status: "failed", notes: "asked to fail", tokens: 1 }
      case Conformance.CONFORMANCE_PROMPTS.crash:
        return { crash: "the echo backend crashed" }
      default:
        return { output: `echo ${prompt.split(" ").at(-1)}`, tokens: 5 }
    }
  }
})
const env = Effect.gen(function*() {
  const tree = yield* SubagentTree.make({ defaultModel: model, childContext })
  const subagents = yield* Subagents.make({ tree, providers: [echo], types: [Fixtures.testType("echoer", "echo")] })
  return { subagents, parent: Fixtures.testParent(model), agentType: "echoer" }
})
for (const check of Conformance.conformanceTests(env)) test(`echo conformance: ${check.name}`, check.run)
