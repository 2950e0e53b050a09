import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { describe, expect, it } from "vitest"
import { makeHome, runDsh, tempDir } from "./support.ts"

interface Body {
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: string | null }>
  readonly tools?: ReadonlyArray<{ readonly function: { readonly name: string } }>
}
const body = (r: FakeOpenAIServer.FakeRequest) => r.body as Body
const firstUser = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.find((m) => m.role === "user")?.content ?? ""
const lastUser = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.filter((m) => m.role === "user").at(-1)?.content ?? ""
const toolResult = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.filter((m) => m.role === "tool").at(-1)?.content

describe("the swarm tool in dsh run", () => {
  it("fans one agent type out over items, returns the table when all settle, and each child stays continuable", async () => {
    const server = await FakeOpenAIServer.startFakeOpenAIServer({
      respond: (r) => {
        const first = firstUser(r)
        if (first.startsWith("Summarize ")) {
          // A continued child sees its earlier task and answers the new message.
          if (lastUser(r) === "and its tests?") return { text: `tests for ${first.slice(10)} are fine` }
          return first.includes("broken") ? { status: 500, errorBody: { error: { message: "the model fell over" } } } : { text: `${first.slice(10)}: ok\nmore detail` }
        }
        return toolResult(r) === undefined
          ? { toolCalls: [{ name: "swarm", arguments: { agent: "explore", prompt: "Summarize {{item}}", items: ["a.ts", "broken.ts", "c.ts"] } }] }
          : { text: "summarized" }
      }
    })
    try {
      const home = makeHome("[llm]\nmax_retries = 0\n")
      const env = { DSH_HOME: home, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" }
      const r = await runDsh(["run", "--model", "openai:any", "--output-format", "json", "summarize the files"], { cwd: tempDir(), env })
      expect(r.code).toBe(0)
      const out = JSON.parse(r.stdout) as { sessionId: string; result: string; subagents: Array<{ name: string; agent: string; status: string }> }
      expect(out.result).toBe("summarized")
      expect(out.subagents.map((s) => [s.name, s.status]).sort()).toEqual([["explore-1", "completed"], ["explore-2", "failed"], ["explore-3", "completed"]])
      // The swarm tool is offered beside subagent, and its result is the table.
      expect((body(server.requests[0]!).tools ?? []).map((t) => t.function.name)).toEqual(expect.arrayContaining(["subagent", "swarm"]))
      const table = server.requests.map(toolResult).find((t) => t?.startsWith("Swarm of"))!
      expect(table).toContain("Swarm of 3 × explore: 2 completed, 1 failed.")
      expect(table).toContain("| 1 | a.ts | explore-1 | completed | a.ts: ok more detail |")
      expect(table).toMatch(/\| 2 \| broken\.ts \| explore-2 \| failed \| \(no text\).*the model fell over/)
      expect(table).toContain("Not completed (1):\n- #2 broken.ts (explore-2): failed")
      // A child of the swarm continues like any other.
      const sent = await runDsh(["subagents", "send", "explore-3", "and its tests?", "--session", out.sessionId], { env })
      expect(sent.code).toBe(0)
      expect(sent.stdout.trim()).toBe("tests for c.ts are fine")
    } finally {
      await server.close()
    }
  }, 60_000)
})
