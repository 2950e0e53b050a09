import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { describe, expect, it } from "vitest"
import { makeHome, runDsh, tempDir } from "../support.ts"

// Seed: openclaw-sub-agents, "通知" (the announcement names sessionKey, sessionId and the transcript
// path "so the main agent can fetch the history with sessions_history") and "工具策略" (session
// tools). A parent reads its descendants' transcripts, paged, and nothing outside its own tree.
interface Body {
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: string | null }>
}
const body = (r: FakeOpenAIServer.FakeRequest) => r.body as Body
const firstUser = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.find((m) => m.role === "user")?.content ?? ""
const step = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.filter((m) => m.role === "assistant").length
const toolResults = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.filter((m) => m.role === "tool").map((m) => m.content ?? "")
const call = (name: string, args: Record<string, unknown>) => ({ toolCalls: [{ name, arguments: args }] })

describe("seed: sessions_history", () => {
  it("reads a descendant's transcript by handle and by its transcript path, paged; a sibling's is refused", async () => {
    const fake = await FakeOpenAIServer.startFakeOpenAIServer({
      respond: (r) => {
        const first = firstUser(r)
        if (first.startsWith("CHILD-E")) return { text: "explored: 3 modules" }
        if (first.startsWith("CHILD-C")) return step(r) === 0 ? call("sessions_history", { handle: "explore-1" }) : { text: "coded" }
        switch (step(r)) {
          case 0:
            return call("subagent", { description: "look", agent: "explore", prompt: "CHILD-E look around" })
          case 1:
            return call("sessions_history", { handle: "explore-1" })
          case 2: {
            // The transcript path as the history (and an announcement) names it.
            const path = /transcript (\S+wire\.jsonl)/.exec(toolResults(r).at(-1) ?? "")?.[1] ?? "missing"
            return call("sessions_history", { handle: path, offset: 1, limit: 1 })
          }
          case 3:
            return call("subagent", { description: "code", agent: "coder", prompt: "CHILD-C peek at your sibling" })
          default:
            return { text: "main done" }
        }
      }
    })
    try {
      const env = { DSH_HOME: makeHome(), DSH_RESIDENT: "0", OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: "sk-test" }
      const r = await runDsh(["run", "-p", "--allow", "subagent", "--model", "openai:any", "PARENT"], { cwd: tempDir(), env })
      expect(r.code, r.stderr).toBe(0)
      const mainResults = toolResults(fake.requests.filter((q) => firstUser(q) === "PARENT").at(-1)!)
      expect(mainResults[1]).toMatch(/^explore-1 \(explore\) is completed; entries 1–2 of 2; transcript \S+\/agents\/explore-1\/wire\.jsonl/)
      expect(mainResults[1]).toContain("user: CHILD-E look around\nassistant: explored: 3 modules")
      expect(mainResults[2]).toContain("entries 2–2 of 2")
      expect(mainResults[2]).toContain("assistant: explored: 3 modules")
      expect(mainResults[2]).not.toContain("user: CHILD-E")
      // coder-1 is explore-1's sibling: not its subagent.
      const coder = fake.requests.filter((q) => firstUser(q).startsWith("CHILD-C")).at(-1)!
      expect(toolResults(coder)[0]).toContain("explore-1 is not one of your subagents")
    } finally {
      await fake.close()
    }
  })
})
