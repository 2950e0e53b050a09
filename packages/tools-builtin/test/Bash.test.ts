import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Asker, Permissions, Toolbox } from "@dsh/tools"
import { Effect } from "effect"
import type { Events } from "@dsh/core"
import { LocalProcessLauncher, Sandbox } from "@dsh/subprocess"
import { Bash, BuiltinTools } from "../src/index.ts"
import { ProcessChecks } from "@dsh/subprocess/testing"
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
      const pids = ProcessChecks.readPids(join(cwd, "pids"))
      assert.lengthOf(pids, 2)
      assert.deepStrictEqual(yield* ProcessChecks.survivors(pids), [])
    }))

  it.live("background processes do not outlive the command", () =>
    Effect.gen(function*() {
      const cwd = tempDir()
      const result = yield* call(cwd, "Bash", { command: "sleep 300 & echo $! >> pids; echo done" })
      assert.strictEqual(result.content, "done\n[exit code 0]")
      assert.deepStrictEqual(yield* ProcessChecks.survivors(ProcessChecks.readPids(join(cwd, "pids"))), [])
    }))

  it.live("a parent-env secret is not visible to the command", () =>
    Effect.gen(function*() {
      const result = yield* call(tempDir(), "Bash", { command: "echo \"key=[${SOME_API_KEY:-}]\"; env | grep -c SOME_API_KEY || true" })
      assert.strictEqual(result.content, "key=[]\n0\n[exit code 0]")
    }))

  it.live("is decided by the permission rules, and a question shows the command", () =>
    Effect.gen(function*() {
      const asked: Array<Asker.PermissionQuestion> = []
      const asker = { ask: (q: Asker.PermissionQuestion) => Effect.sync(() => asked.push(q)).pipe(Effect.as({ allow: false, by: "user", reason: "user said no" })) }
      const cwd = tempDir()
      const result = yield* call(cwd, "Bash", { command: "touch x", description: "create x" }).pipe(
        Effect.provideService(Permissions.Permissions, yield* Permissions.make({ deny: ["Bash(rm *)"] })),
        Effect.provideService(Asker.Asker, asker)
      )
      assert.strictEqual(result.content, "Error: permission denied: user said no")
      assert.deepInclude(asked[0], { subject: "Bash(touch x)", summary: "$ touch x  # create x", reason: "mode: default", agent: "main" })
      const denied = yield* call(cwd, "Bash", { command: "ls && rm -rf x" }).pipe(
        Effect.provideService(Permissions.Permissions, yield* Permissions.make({ mode: "bypass", deny: ["Bash(rm *)"] }))
      )
      assert.include(denied.content, "Bash(ls && rm -rf x) is denied by the rule \"Bash(rm *)\"")
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
      assert.deepStrictEqual(box.names, [...BuiltinTools.BUILTIN_TOOL_NAMES])
      for (const spec of box.specs) {
        const properties = (spec.parameters as { properties: Record<string, { description?: string }> }).properties
        for (const [field, schema] of Object.entries(properties)) assert.isString(schema.description, `${spec.name}.${field}`)
      }
      const tools = yield* BuiltinTools.make.pipe(Effect.provide(LocalProcessLauncher.layer()))
      const readOnly = Toolbox.make({ tools, policy: { tools: [...BuiltinTools.READ_ONLY_TOOL_NAMES] } })
      assert.deepStrictEqual(readOnly.names, ["Read", "Glob", "Grep"])
    }))
})

describe("Bash in the sandbox", () => {
  const launcher = LocalProcessLauncher.make()
  const run = (sandbox: Sandbox.SandboxShape, command: string, events: Array<Events.AgentEvent>) =>
    Toolbox.make({ tools: [Bash.makeBashTool(launcher, { sandbox })] }).execute(
      { id: "b1", name: "Bash", arguments: JSON.stringify({ command }) },
      { cwd: tempDir(), agent: "main", turn: { emit: (e) => Effect.sync(() => void events.push(e)), conversation: Effect.succeed([]), systemPrompt: "" } }
    )

  it.live("`on` without a working bwrap refuses with how to install it", () =>
    Effect.gen(function*() {
      const sandbox = yield* Sandbox.make({ mode: "on", network: false, writable: [] }, launcher, { path: "/nonexistent" })
      const result = yield* run(sandbox, "echo hi", [])
      assert.isTrue(result.isError)
      assert.include(result.content, "Bash is not available: [sandbox] mode = \"on\" but bwrap is not installed")
      assert.include(result.content, "apt-get install bubblewrap")
    }))

  it.live("`auto` without a working bwrap runs unconfined and says so once, in the transcript", () =>
    Effect.gen(function*() {
      const sandbox = yield* Sandbox.make({ mode: "auto", network: false, writable: [] }, launcher, { path: "/nonexistent" })
      const events: Array<Events.AgentEvent> = []
      assert.include((yield* run(sandbox, "echo one", events)).content, "one")
      assert.include((yield* run(sandbox, "echo two", events)).content, "two")
      const notices = events.filter((e) => e.type === "notice")
      assert.strictEqual(notices.length, 1)
      assert.include(JSON.stringify(notices[0]), "commands run unconfined")
    }))
})
