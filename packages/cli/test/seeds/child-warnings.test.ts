import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { makeHome, runDsh, tempDir } from "../support.ts"

// Seed: kimi-code-agents-and-subagents, "Agent 文件格式": patterns that can never match are
// warned about when the profile applies — for an agent running as a subagent too.
interface Body {
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: string | null }>
}
const body = (r: FakeOpenAIServer.FakeRequest) => r.body as Body
const firstUser = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.find((m) => m.role === "user")?.content ?? ""
const step = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.filter((m) => m.role === "assistant").length

describe("seed: pattern warnings for a subagent", () => {
  it("are in the child's transcript and in dsh subagents info", async () => {
    const fake = await FakeOpenAIServer.startFakeOpenAIServer({
      respond: (r) =>
        firstUser(r).startsWith("CHILD")
          ? { text: "reviewed" }
          : step(r) === 0
          ? { toolCalls: [{ name: "subagent", arguments: { description: "review", agent: "reviewer", prompt: "CHILD review" } }] }
          : { text: "main done" }
    })
    try {
      const home = makeHome()
      mkdirSync(join(home, "agents"))
      // `Raed` is a typo no tool has; `Bas*` is a wildcard outside mcp__: neither can ever match.
      writeFileSync(join(home, "agents", "reviewer.md"), "---\ndescription: reviews\ntools: Read, Raed\ndisallowedTools: Bas*\n---\nYou review.\n")
      const env = { DSH_HOME: home, DSH_RESIDENT: "0", OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: "sk-test" }
      const r = await runDsh(["run", "-p", "--allow", "subagent", "--model", "openai:any", "--output-format", "json", "PARENT"], { cwd: tempDir(), env })
      expect(r.code, r.stderr).toBe(0)
      const { sessionId } = JSON.parse(r.stdout) as { sessionId: string }
      const wire = readFileSync(join(home, "sessions", sessionId, "agents", "reviewer-1", "wire.jsonl"), "utf8").trim().split("\n")
      const notices = wire.map((l) => JSON.parse(l) as { type: string; level?: string; message?: string }).filter((x) => x.type === "notice")
      expect(notices.map((n) => n.level)).toEqual(["warning", "warning"])
      expect(notices[0]?.message).toContain("tools: no tool is named \"Raed\"")
      expect(notices[1]?.message).toContain("disallowedTools: \"Bas*\" is a wildcard outside an mcp__ pattern")
      const info = await runDsh(["subagents", "info", "reviewer-1", "--session", sessionId, "--json"], { env })
      const warnings = (JSON.parse(info.stdout) as { warnings?: ReadonlyArray<string> }).warnings
      expect(warnings).toEqual(notices.map((n) => n.message))
      const text = await runDsh(["subagents", "info", "reviewer-1", "--session", sessionId], { env })
      expect(text.stdout).toMatch(/^warnings: \[.*Raed/m)
    } finally {
      await fake.close()
    }
  })
})
