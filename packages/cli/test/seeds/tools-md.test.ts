import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { makeHome, runDsh, tempDir } from "../support.ts"

// Seed: openclaw-sub-agents, "限制" ("Sub-agent context 只注入 AGENTS.md + TOOLS.md"): a child's
// prompt carries the workspace's AGENTS.md and TOOLS.md, read like AGENTS.md.
interface Body {
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: string | null }>
}
const body = (r: FakeOpenAIServer.FakeRequest) => r.body as Body
const firstUser = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.find((m) => m.role === "user")?.content ?? ""
const systemOf = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.find((m) => m.role === "system")?.content ?? ""
const step = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.filter((m) => m.role === "assistant").length

describe("seed: TOOLS.md", () => {
  it("is injected with AGENTS.md into the main agent's and a subagent's prompt", async () => {
    const fake = await FakeOpenAIServer.startFakeOpenAIServer({
      respond: (r) =>
        firstUser(r).startsWith("CHILD")
          ? { text: "looked" }
          : step(r) === 0
          ? { toolCalls: [{ name: "subagent", arguments: { description: "look", agent: "explore", prompt: "CHILD look around" } }] }
          : { text: "main done" }
    })
    try {
      const cwd = tempDir()
      mkdirSync(join(cwd, ".git"))
      writeFileSync(join(cwd, "AGENTS.md"), "Project rule AGENTS-7.\n")
      writeFileSync(join(cwd, "TOOLS.md"), "Use `rg`, never `grep -r` (TOOLS-9).\n")
      const home = makeHome()
      writeFileSync(join(home, "TOOLS.md"), "Home tools note HOME-TOOLS-3.\n")
      const env = { DSH_HOME: home, DSH_RESIDENT: "0", OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: "sk-test" }
      const r = await runDsh(["run", "-p", "--model", "openai:any", "PARENT"], { cwd, env })
      expect(r.code, r.stderr).toBe(0)
      const child = fake.requests.find((x) => firstUser(x).startsWith("CHILD"))
      expect(child).toBeDefined()
      for (const prompt of [systemOf(fake.requests[0]!), systemOf(child!)]) {
        expect(prompt).toContain(`<!-- ${join(cwd, "TOOLS.md")} -->\nUse \`rg\`, never \`grep -r\` (TOOLS-9).`)
        expect(prompt).toContain("Home tools note HOME-TOOLS-3.")
        // General first, then the project's: AGENTS.md before TOOLS.md in each place.
        expect(prompt.indexOf("HOME-TOOLS-3")).toBeLessThan(prompt.indexOf("AGENTS-7"))
        expect(prompt.indexOf("AGENTS-7")).toBeLessThan(prompt.indexOf("TOOLS-9"))
      }
    } finally {
      await fake.close()
    }
  })
})
