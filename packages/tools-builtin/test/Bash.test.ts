import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Approval, type ApprovalRequest, approvalFromRules, makeToolbox } from "@dsh/tools"
import { Effect } from "effect"
import { LocalProcessLauncher } from "@dsh/subprocess"
import { BUILTIN_TOOL_NAMES, makeBuiltinTools, READ_ONLY_TOOL_NAMES } from "../src/index.ts"
import { readPids, survivors } from "@dsh/subprocess/testing"
import { call, tempDir, toolbox } from "./support.ts"

describe("Bash", () => {
  beforeAll(() => {
    process.env.SOME_API_KEY = "sk-parent-secret"
  })
  afterAll(() => {
    delete process.env.SOME_API_KEY
  })

  it.live("runs in the working directory and returns stdout, stderr and the exit code", () =>
    Effect.gen(function*() {
      const cwd = tempDir()
      const result = yield* call(cwd, "Bash", { command: "pwd; echo problem >&2; exit 4" })
      assert.strictEqual(result.content, `${cwd}\n[stderr]\nproblem\n[exit code 4]`)
      assert.isUndefined(result.isError)
    }))

  it.live("a timeout is an error result and leaves no process behind", () =>
    Effect.gen(function*() {
      const cwd = tempDir()
      const result = yield* call(cwd, "Bash", {
        command: "sleep 300 & echo $! >> pids; sleep 300 & echo $! >> pids; echo started; wait",
        timeoutMs: 2000
      })
      assert.isTrue(result.isError)
      assert.include(result.content, "timed out after 2000 ms; it and every process it started were stopped")
      assert.include(result.content, "started")
      const pids = readPids(join(cwd, "pids"))
      assert.lengthOf(pids, 2)
      assert.deepStrictEqual(yield* survivors(pids), [])
    }))

  it.live("background processes do not outlive the command", () =>
    Effect.gen(function*() {
      const cwd = tempDir()
      const result = yield* call(cwd, "Bash", { command: "sleep 300 & echo $! >> pids; echo done" })
      assert.strictEqual(result.content, "done\n[exit code 0]")
      assert.deepStrictEqual(yield* survivors(readPids(join(cwd, "pids"))), [])
    }))

  it.live("a parent-env secret is not visible to the command", () =>
    Effect.gen(function*() {
      const result = yield* call(tempDir(), "Bash", { command: "echo \"key=[${SOME_API_KEY:-}]\"; env | grep -c SOME_API_KEY || true" })
      assert.strictEqual(result.content, "key=[]\n0\n[exit code 0]")
    }))

  it.live("needs approval, and the approval request shows the command", () =>
    Effect.gen(function*() {
      const asked: Array<ApprovalRequest> = []
      const policy = approvalFromRules({
        ask: (request) => Effect.sync(() => asked.push(request)).pipe(Effect.as({ allowed: false, reason: "user said no" }))
      })
      const result = yield* call(tempDir(), "Bash", { command: "touch x", description: "create x" }).pipe(
        Effect.provideService(Approval, policy)
      )
      assert.strictEqual(result.content, "Error: permission denied: user said no")
      assert.strictEqual(asked[0]?.summary, "$ touch x  # create x")
    }))

  it.live("rejects a timeout above the maximum before running anything", () =>
    Effect.gen(function*() {
      const result = yield* call(tempDir(), "Bash", { command: "true", timeoutMs: 600_001 })
      assert.include(result.content, "invalid arguments for Bash: timeoutMs")
    }))

  it.live("a missing working directory is a clear error", () =>
    Effect.gen(function*() {
      const result = yield* call("/nonexistent/dsh-cwd", "Bash", { command: "true" })
      assert.strictEqual(result.content, "Error: could not run the command: working directory does not exist: /nonexistent/dsh-cwd")
    }))
})

describe("makeBuiltinTools", () => {
  it.live("offers all six tools; the read-only names are a policy that hides the rest", () =>
    Effect.gen(function*() {
      const box = yield* toolbox
      assert.deepStrictEqual(box.names, [...BUILTIN_TOOL_NAMES])
      for (const spec of box.specs) {
        const properties = (spec.parameters as { properties: Record<string, { description?: string }> }).properties
        for (const [field, schema] of Object.entries(properties)) assert.isString(schema.description, `${spec.name}.${field}`)
      }
      const tools = yield* makeBuiltinTools.pipe(Effect.provide(LocalProcessLauncher.layer()))
      const readOnly = makeToolbox({ tools, policy: { tools: [...READ_ONLY_TOOL_NAMES] } })
      assert.deepStrictEqual(readOnly.names, ["Read", "Glob", "Grep"])
    }))
})
