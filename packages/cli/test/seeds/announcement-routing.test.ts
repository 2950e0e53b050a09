import { AgentCatalog, AgentHost } from "@dsh/agent"
import { Harness } from "@dsh/harness"
import { ModelRegistry } from "@dsh/llm"
import { type Script, ScriptedAdapter } from "@dsh/llm-scripted"
import { MemorySessionStore } from "@dsh/session"
import type { SubagentTree } from "@dsh/subagent"
import { SpawnProvider } from "@dsh/subagent-inprocess"
import { Fixtures } from "@dsh/subagent/testing"
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"

// Seed: openclaw-sub-agents, "通知" (the announcement goes to the requester's chat channel, keeping
// thread/topic routing): a library host routes each requester's announcements to its own channel.
const spawn = (prompt: string) => ({ name: "subagent", arguments: { description: prompt, prompt, agent: "coder", background: true } })
const script: Script.Script = {
  rules: [
    { when: { lastUser: "^\\[subagent announcement\\]" }, reply: { text: "heard" } },
    { when: { lastUser: "^\\[announce step\\]" }, reply: { text: "announced: {{lastUser|firstLine}}" } },
    { when: { lastUser: "^go$", step: 0 }, reply: { toolCalls: [spawn("NEST")] } },
    { when: { lastUser: "^NEST$", step: 0 }, reply: { toolCalls: [spawn("LEAF")] } },
    { when: { lastUser: "^LEAF$" }, reply: { text: "leaf done" } }
  ],
  fallback: { text: "started" }
}

describe("seed: announcements routed per requester", () => {
  it("onAnnouncement hears each announcement under the handle of the agent that requested it", async () => {
    const routed: Array<[string, SubagentTree.RoutedAnnouncement]> = []
    const layer = Harness.layer({
      backends: [SpawnProvider.SpawnProvider],
      model: "scripted:nest",
      agents: () => Effect.succeed(AgentCatalog.staticCatalog({ main: Fixtures.testDefinition("lead"), delegates: [Fixtures.testDefinition("coder")] })),
      onAnnouncement: (parent, announcement) => Effect.sync(() => void routed.push([parent, announcement]))
    }).pipe(Layer.provide(Layer.mergeAll(MemorySessionStore.layer, ModelRegistry.layerWith([ScriptedAdapter.make({ scripts: { nest: script } })]))))
    const { id, result } = await Effect.runPromise(Effect.gen(function*() {
      const host = yield* AgentHost.AgentHost
      const { id } = yield* host.createSession({ cwd: process.cwd() })
      const result = yield* host.prompt({ sessionId: id, prompt: "go" })
      return { id, result }
    }).pipe(Effect.scoped, Effect.provide(layer)))
    expect(result.status).toBe("completed")
    // The leaf's went to its requester coder-1, coder-1's to main: each its own channel.
    expect(routed.map(([parent, a]) => [parent, a.handle, a.status])).toEqual([["coder-1", "coder-2", "completed"], ["main", "coder-1", "completed"]])
    for (const [parent, a] of routed) {
      expect(a.parent).toBe(parent)
      expect(a.sessionId).toBe(id)
      expect(a.text).toContain(`Handle: ${a.handle} (coder)`)
      expect(a.text).toContain(`Session: ${id}:subagent:${a.handle}`)
    }
  })
})
