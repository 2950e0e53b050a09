import { AgentHost } from "@dsh/agent"
import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { leadAndResearcher, type Message } from "./support.ts"

describe("a child's usage as the store keeps it", () => {
  it("reads back the reasoning tokens a child's model reported, in a new host over the same home", async () => {
    const server = await FakeOpenAIServer.startFakeOpenAIServer({
      respond: (request) => {
        const messages = (request.body as { messages?: ReadonlyArray<Message> }).messages ?? []
        if (String(messages.find((m) => m.role === "system")?.content).includes("You research")) {
          return { text: "The answer is 42.", usage: { input: 10, output: 9 }, reasoningTokens: 7 }
        }
        if (messages.at(-1)?.role === "tool") return { text: "done" }
        return { toolCalls: [{ id: "call_0", name: "subagent", arguments: { description: "q", prompt: "What?", agent: "researcher" } }] }
      }
    })
    const home = mkdtempSync(join(tmpdir(), "dsh-usage-"))
    const host = () => leadAndResearcher(home, server.url)
    try {
      const first = host()
      const sessionId = await first.runPromise(Effect.gen(function*() {
        const dsh = yield* AgentHost.AgentHost
        const { id } = yield* dsh.createSession({ cwd: home })
        const result = yield* dsh.prompt({ sessionId: id, prompt: "What is the answer?" })
        assert.strictEqual(result.subagents[0]?.usage.reasoningTokens, 7)
        return id
      }))
      await first.dispose()
      const second = host()
      const children = await second.runPromise(Effect.flatMap(AgentHost.AgentHost, (dsh) => dsh.listChildren(sessionId)))
      await second.dispose()
      assert.deepStrictEqual(children.map((c) => [c.name, c.usage]), [["researcher-1", { inputTokens: 10, outputTokens: 9, totalTokens: 19, reasoningTokens: 7 }]])
    } finally {
      await server.close()
    }
  })
})
