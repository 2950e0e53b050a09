import { assert, describe, it } from "@effect/vitest"
import { TranscriptView } from "@dsh/agent"
import type { Events } from "@dsh/core"
import { ProcessChecks } from "@dsh/subprocess/testing"
import { type PermissionPolicy, Permissions } from "@dsh/tools"
import { Effect, Exit, Schedule, Scope } from "effect"
import { join } from "node:path"
import { FakeAcpAgent } from "../src/testing.ts"
import { makeEnv, readJsonLines, tempDir } from "./support.ts"

// Children that behave like the vendor agents dsh runs (Codex, Claude Code, Gemini CLI), each
// a real process built with the ACP SDK (`@dsh/subagent-acp/testing`).

/** The tree's rules for a spawn. */
const withRules = (settings: PermissionPolicy.PermissionSettings) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(Effect.orDie(Permissions.make(settings)), (permissions) => Effect.provideService(effect, Permissions.Permissions, permissions))

const allowAll = withRules({ mode: "bypass" })

const spawnOne = (agent: Omit<FakeAcpAgent.FakeAcpAgentOptions, "name">, prompt: string, provider = {}) =>
  Effect.gen(function*() {
    const env = yield* makeEnv({ agents: [FakeAcpAgent.fakeAcpAgent({ name: "vendor", ...agent })], provider })
    const result = yield* env.subagents.spawn({ prompt, description: "vendor", agent: "acp:vendor" }, env.parent).pipe(allowAll)
    const wire = readJsonLines(join(env.sessionLocation, "agents", result.handle, "wire.jsonl"))
    return { env, result, wire }
  })

/** Polls an observable condition (a pid, a file); bounded. */
const until = (condition: () => boolean) =>
  Effect.sync(condition).pipe(Effect.repeat({ schedule: Schedule.spaced("20 millis"), until: (holds) => holds, times: 500 }))

const pidOf = (output: string): number => Number(/pid (\d+)/.exec(output)?.[1])

describe("usage, wherever the agent reports it (item 1)", () => {
  it.live("only in usage_update (like Codex): tokens from `used`, cost from the running total", () =>
    Effect.gen(function*() {
      const { env, result, wire } = yield* spawnOne({ usage: "update" }, "CONFORMANCE echo u1")
      assert.strictEqual(result.status, "completed", result.notes)
      assert.deepStrictEqual(result.usage, { inputTokens: 13, outputTokens: 0, totalTokens: 13 })
      assert.closeTo(result.cost ?? 0, 0.001, 1e-9)
      assert.deepInclude(wire.find((r) => r.type === "usage"), { usage: result.usage, cost: result.cost })
      // The descriptor (what `subagents list` shows) has it too.
      assert.strictEqual(env.subagents.tree.descriptors.get(result.handle)?.usage.totalTokens, 13)
    }).pipe(Effect.scoped), 30_000)

  it.live("only in the prompt response's _meta (like Gemini CLI)", () =>
    Effect.gen(function*() {
      const { result } = yield* spawnOne({ usage: "meta" }, "CONFORMANCE echo u2")
      assert.deepStrictEqual(result.usage, { inputTokens: 10, outputTokens: 3, totalTokens: 13 })
      assert.isUndefined(result.cost)
    }).pipe(Effect.scoped), 30_000)

  it.live("in the prompt response's usage, which wins over every other source", () =>
    Effect.gen(function*() {
      const { result } = yield* spawnOne({ usage: "response" }, "run make test")
      // Two model calls: the tool call, then the answer.
      assert.deepStrictEqual(result.usage, { inputTokens: 20, outputTokens: 6, totalTokens: 26 })
    }).pipe(Effect.scoped), 30_000)
})

describe("tool calls in transcripts (item 2)", () => {
  const shown = (wire: ReadonlyArray<Record<string, unknown>>) =>
    TranscriptView.conversationRecords(wire as unknown as ReadonlyArray<Events.WireRecord>, { tools: true }).map((r) => TranscriptView.eventLine(r)).filter((l) => l !== undefined)

  it.live("the command only in a late tool_call_update (like Claude Code) is what the transcript shows", () =>
    Effect.gen(function*() {
      const { result, wire } = yield* spawnOne({ lateInput: true }, "run ls -la")
      assert.strictEqual(result.output, "done: ran ls -la")
      const calls = wire.filter((r) => r.type === "tool-call")
      // Recorded once, when the input came, under the name the call was announced with.
      assert.deepStrictEqual(calls.map((c) => [c.name, c.input]), [["Terminal", JSON.stringify({ command: "ls -la" })]])
      const id = calls[0]!.id
      // Decided on the call as merged: the command came after the announcement, before the request.
      assert.deepInclude(wire.find((r) => r.type === "permission"), { id, subject: "Bash(ls -la)", decision: "allowed", via: "mode", rule: "mode: bypass" })
      assert.deepInclude(wire.find((r) => r.type === "tool-result"), { id, output: "ran: ls -la", isError: false })
      assert.deepStrictEqual(wire.filter((r) => ["tool-call", "permission", "tool-result"].includes(String(r.type))).map((r) => r.type), ["tool-call", "permission", "tool-result"])
      assert.includeMembers(shown(wire), ["→ Terminal {\"command\":\"ls -la\"}", "⚑ Bash(ls -la) allowed: mode: bypass", "← Terminal: ran: ls -la"])
    }).pipe(Effect.scoped), 30_000)

  it.live("a permission request with no tool_call before it (like Gemini CLI) creates the call", () =>
    Effect.gen(function*() {
      const { result, wire } = yield* spawnOne({ permissionFirst: true }, "write notes/todo.md")
      assert.strictEqual(result.output, "done: wrote notes/todo.md")
      const call = wire.find((r) => r.type === "tool-call")
      assert.deepInclude(call, { name: "Write", input: JSON.stringify({ path: "notes/todo.md", content: "hello\n" }) })
      assert.deepInclude(wire.find((r) => r.type === "permission"), { id: call!.id, subject: "Edit(notes/todo.md)", decision: "allowed" })
      assert.deepInclude(wire.find((r) => r.type === "tool-result"), { id: call!.id, output: "wrote notes/todo.md" })
    }).pipe(Effect.scoped), 30_000)

  it.live("a denied request is recorded with the reason, and the call fails", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv({ agents: [FakeAcpAgent.fakeAcpAgent({ name: "vendor", permissionFirst: true })] })
      const result = yield* env.subagents.spawn({ prompt: "run rm -rf build", description: "vendor", agent: "acp:vendor" }, env.parent).pipe(
        withRules({ mode: "bypass", deny: ["Bash(rm *)"] })
      )
      const wire = readJsonLines(join(env.sessionLocation, "agents", result.handle, "wire.jsonl"))
      // The model reads why: the subject and the rule that denied it.
      assert.include(result.output, "could not run rm -rf build: Bash(rm -rf build) is denied by the rule \"Bash(rm *)\"")
      assert.deepInclude(wire.find((r) => r.type === "permission"), { subject: "Bash(rm -rf build)", decision: "denied", via: "rule", rule: "deny: Bash(rm *)" })
      assert.deepInclude(wire.find((r) => r.type === "tool-result"), { isError: true })
    }).pipe(Effect.scoped), 30_000)
})

describe("the result before teardown (item 3)", () => {
  it.live("a child that never exits on EOF and ignores SIGTERM: the result comes while it still runs; it is gone afterwards", () =>
    Effect.gen(function*() {
      const pidFile = join(tempDir(), "pids")
      const treeScope = yield* Scope.make()
      const { result } = yield* spawnOne({ exitOnEof: false, ignoreSigterm: true, pidFile }, "whoami", { keepAlive: 0 }).pipe(Scope.provide(treeScope))
      assert.strictEqual(result.status, "completed")
      const pid = pidOf(result.output)
      assert.deepStrictEqual(ProcessChecks.readPids(pidFile), [pid])
      // The parent has its result; the child is being closed in the background, not waited for.
      assert.isFalse(ProcessChecks.isGone(pid), "the result waited for the child to be closed")
      assert.isTrue(yield* until(() => ProcessChecks.isGone(pid)), "the child was never closed")
      yield* Scope.close(treeScope, Exit.void)
    }), 30_000)
})

describe("continuable ACP children (item 7)", () => {
  it.live("warm: a message continues the same session on the same process", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv({ agents: [FakeAcpAgent.fakeAcpAgent({ name: "vendor", exitOnEof: false })] })
      const first = yield* env.subagents.spawn({ prompt: "whoami", description: "vendor", agent: "acp:vendor" }, env.parent)
      const again = yield* env.subagents.send(first.handle, "whoami", "user")
      assert.strictEqual(again._tag, "Replied")
      if (again._tag !== "Replied") return
      const [a, b] = [first.output, again.result.output]
      assert.strictEqual(pidOf(a), pidOf(b))
      assert.strictEqual(/session (\S+)/.exec(a)?.[1], /session (\S+)/.exec(b)?.[1])
      assert.include(b, "turn 2")
      assert.isFalse(ProcessChecks.isGone(pidOf(b)))
    }).pipe(Effect.scoped), 30_000)

  it.live("cold: after the keep-alive, an agent that loads sessions is continued on a new process by session/load", () =>
    Effect.gen(function*() {
      const state = tempDir("dsh-acp-state-")
      const env = yield* makeEnv({ agents: [FakeAcpAgent.fakeAcpAgent({ name: "vendor", loadSession: true, stateDir: state })], provider: { keepAlive: "50 millis" } })
      const first = yield* env.subagents.spawn({ prompt: "whoami", description: "vendor", agent: "acp:vendor" }, env.parent)
      assert.isTrue(yield* until(() => ProcessChecks.isGone(pidOf(first.output))), "the keep-alive never ended")
      const reply = yield* env.subagents.send(first.handle, "CONFORMANCE recall", "user")
      assert.strictEqual(reply._tag, "Replied")
      if (reply._tag !== "Replied") return
      assert.strictEqual(reply.result.status, "completed", reply.result.notes)
      assert.strictEqual(reply.result.output, "recall: whoami")
      // The replayed history is not recorded twice: one user message per prompt.
      const wire = readJsonLines(join(env.sessionLocation, "agents", first.handle, "wire.jsonl"))
      assert.deepStrictEqual(wire.filter((r) => r.type === "message" && (r.message as { role: string }).role === "user").map((r) => (r.message as { content: string }).content), ["whoami", "CONFORMANCE recall"])
    }).pipe(Effect.scoped), 30_000)

  it.live("cold, an agent that did not advertise loadSession: send is refused as Unsupported, naming why", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv({ agents: [FakeAcpAgent.fakeAcpAgent({ name: "vendor" })], provider: { keepAlive: 0 } })
      const first = yield* env.subagents.spawn({ prompt: "whoami", description: "vendor", agent: "acp:vendor" }, env.parent)
      const refused = yield* env.subagents.send(first.handle, "whoami", "user").pipe(Effect.flip)
      assert.strictEqual(refused.reason, "Unsupported")
      assert.include(refused.message, "did not advertise loadSession")
    }).pipe(Effect.scoped), 30_000)

  it.live("[acp.agents.<name>] mcp_servers reach the agent in session/new", () =>
    Effect.gen(function*() {
      const mcpServers = [{ name: "files", command: "mcp-files", args: ["--root", "/tmp"], env: [] }, { type: "http" as const, name: "docs", url: "http://127.0.0.1:9/mcp", headers: [] }]
      const { result } = yield* spawnOne({ config: { mcpServers } }, "mcp")
      assert.strictEqual(result.output, "mcp servers: files, docs")
    }).pipe(Effect.scoped), 30_000)
})

