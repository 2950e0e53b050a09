import { AgentCatalog, AgentHost } from "@dsh/agent"
import { ModelRegistry } from "@dsh/llm"
import { ScriptedAdapter } from "@dsh/llm-scripted"
import { FileSessionStore } from "@dsh/session"
import { OpenFiles } from "@dsh/session/testing"
import { FixtureProvider, Fixtures } from "@dsh/subagent/testing"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Harness } from "../src/index.ts"

// The lead delegates once, then answers.
const adapter = ScriptedAdapter.make({
  scripts: {
    lead: {
      rules: [{ when: { step: 0, lastUser: "delegate" }, reply: { toolCalls: [{ name: "subagent", arguments: { description: "task", prompt: "the task", agent: "coder" } }] } }],
      fallback: { text: "all done" }
    }
  }
})
const fixture = FixtureProvider.make({ name: "fixture", reply: ({ prompt }) => ({ output: `done: ${prompt}` }) })

describe("a long-lived host lets finished sessions go", () => {
  it.effect("keeps no file of a finished session open, and continues it and its child from the store", () => {
    const home = mkdtempSync(join(tmpdir(), "dsh-released-"))
    const layer = Harness.layer({
      backends: [fixture],
      delegatesRunOn: "fixture",
      model: "scripted:lead",
      agents: () => Effect.succeed(AgentCatalog.staticCatalog({ main: Fixtures.testDefinition("lead"), delegates: [Fixtures.testDefinition("coder")] }))
    }).pipe(Layer.provide(Layer.mergeAll(FileSessionStore.layer({ home }), ModelRegistry.layerWith([adapter]))))
    return Effect.gen(function*() {
      const host = yield* AgentHost.AgentHost
      const ids: Array<string> = []
      for (let i = 0; i < 3; i++) {
        const { id } = yield* host.createSession({ cwd: process.cwd() })
        const first = yield* host.prompt({ sessionId: id, prompt: "delegate please" })
        assert.deepStrictEqual(first.subagents.map((c) => [c.name, c.status]), [["coder-1", "completed"]])
        ids.push(id)
      }
      assert.deepStrictEqual(OpenFiles.under(join(home, "sessions")), [], "no transcript of a finished session is kept open")
      // Released, not lost: the finished child takes a message, the session another prompt.
      const reply = yield* host.sendToChild({ sessionId: ids[0]!, handle: "coder-1", message: "once more" })
      assert.strictEqual(reply.status, "completed")
      assert.include(reply.result, "done: once more")
      const again = yield* host.prompt({ sessionId: ids[0]!, prompt: "and now?" })
      assert.strictEqual(again.status, "completed")
      const loaded = yield* host.loadSession(ids[0]!)
      const seqs = loaded.records.map((r) => r.seq)
      assert.deepStrictEqual(seqs, seqs.map((_, i) => i + 1), "the transcript's numbering goes on after the release, without a gap or a repeat")
      assert.deepStrictEqual(OpenFiles.under(join(home, "sessions")), [])
    }).pipe(Effect.scoped, Effect.provide(layer))
  })
})
