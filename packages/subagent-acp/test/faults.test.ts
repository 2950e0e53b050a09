import { assert, describe, it } from "@effect/vitest"
import { Conformance } from "@dsh/subagent/testing"
import { Effect } from "effect"
import { dshAgent, makeEnv, scriptAgent, writeScript } from "./support.ts"

// Broken children: each ends `failed` with a reason a parent (or its model) can act on, and
// the parent carries on: a healthy `acp:dsh` child runs right after in the same context.
const script = writeScript(Conformance.conformanceScript)
// The broken agents answer (or not) at once: a short readiness bound keeps the silent one quick.
// The healthy `acp:dsh` keeps the provider's default: its start-up is a real process on a shared machine.
const broken = { initializeTimeout: "500 millis" } as const
const agents = [
  dshAgent,
  { ...scriptAgent("garbage", "garbage-agent.mjs"), ...broken },
  { ...scriptAgent("exits", "exit-agent.mjs"), ...broken },
  { ...scriptAgent("silent", "silent-agent.mjs"), ...broken },
  { ...scriptAgent("huge", "oversized-agent.mjs"), ...broken },
  { ...scriptAgent("crashes", "crash-mid-turn-agent.mjs"), ...broken },
  { name: "missing", description: "a command that does not exist", command: "dsh-no-such-acp-agent", ...broken }
]

const run = (agent: string, check: (r: { status: string; notes: string; output: string }) => void) =>
  Effect.gen(function*() {
    const env = yield* makeEnv({ agents, script, provider: { maxMessageBytes: 64 * 1024 } })
    const r = yield* env.subagents.spawn({ prompt: "do the task", description: "fault", agent }, env.parent)
    check({ status: r.status, notes: r.notes ?? "", output: r.output })
    // The parent carries on.
    const next = yield* env.subagents.spawn({ prompt: "CONFORMANCE echo after", description: "healthy", agent: "acp:dsh" }, env.parent)
    assert.strictEqual(next.status, "completed", next.notes)
    assert.include(next.output, "echo after")
  }).pipe(Effect.scoped)

describe("subagent-acp faults", () => {
  it.live("garbage on stdout is a protocol error", () =>
    run("acp:garbage", (r) => {
      assert.strictEqual(r.status, "failed")
      assert.include(r.notes, "ACP protocol error")
      assert.include(r.notes, "not JSON")
      assert.include(r.notes, "Welcome to my agent")
    }), 20_000)

  it.live("an agent that exits at once fails with its exit code and stderr", () =>
    run("acp:exits", (r) => {
      assert.strictEqual(r.status, "failed")
      assert.include(r.notes, "exited with code 3 before it was ready")
      assert.include(r.notes, "missing API key")
    }), 20_000)

  it.live("an agent that never answers initialize fails after the bound", () =>
    run("acp:silent", (r) => {
      assert.strictEqual(r.status, "failed")
      assert.include(r.notes, "did not answer initialize within")
    }), 20_000)

  it.live("an oversized frame is a protocol error", () =>
    run("acp:huge", (r) => {
      assert.strictEqual(r.status, "failed")
      assert.include(r.notes, "larger than 65536 bytes")
    }), 20_000)

  it.live("an agent that dies mid-turn fails with its stderr tail and keeps the text so far", () =>
    run("acp:crashes", (r) => {
      assert.strictEqual(r.status, "failed")
      assert.include(r.notes, "exited with code 70 in the middle of its turn")
      assert.include(r.notes, "panic: out of memory")
      assert.strictEqual(r.output, "Working on it")
    }), 20_000)

  it.live("a command that cannot be started fails with the reason", () =>
    run("acp:missing", (r) => {
      assert.strictEqual(r.status, "failed")
      assert.include(r.notes, "cannot start the ACP agent")
      assert.include(r.notes, "dsh-no-such-acp-agent")
    }), 20_000)
})
