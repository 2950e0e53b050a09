import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { makeHome, runDsh, tempDir } from "../support.ts"

// Seed: openclaw-sub-agents, "工具" (default model: the caller's, unless
// agents.defaults.subagents.model or the per-agent agents.list[].subagents.model; the call's
// model first) and "工具策略" (tools.subagents.tools allow/deny). Per requester: an agent file's
// `subagentDefaults` sets them for its own children; `[subagents] model` keeps applying to all.
interface Body {
  readonly model: string
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: string | null }>
  readonly tools?: ReadonlyArray<{ readonly function: { readonly name: string } }>
}
const body = (r: FakeOpenAIServer.FakeRequest) => r.body as Body
const firstUser = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.find((m) => m.role === "user")?.content ?? ""
const step = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.filter((m) => m.role === "assistant").length
const toolNames = (r: FakeOpenAIServer.FakeRequest) => (body(r).tools ?? []).map((t) => t.function.name)
const delegate = (prompt: string) => ({ toolCalls: [{ name: "subagent", arguments: { description: "work", agent: "worker", prompt } }] })

describe("seed: subagentDefaults per requester", () => {
  it("gives the requester's children their model and tool limits, and only them", async () => {
    const fake = await FakeOpenAIServer.startFakeOpenAIServer({
      respond: (r) => {
        const first = firstUser(r)
        if (first.startsWith("GRAND")) return { text: "grand done" }
        if (first.startsWith("CHILD")) return step(r) === 0 ? delegate("GRAND work") : { text: "child done" }
        return step(r) === 0 ? delegate("CHILD work") : { text: "main done" }
      }
    })
    try {
      const cwd = tempDir()
      mkdirSync(join(cwd, ".dsh", "agents"), { recursive: true })
      writeFileSync(
        join(cwd, ".dsh", "agents", "lead.md"),
        "---\ndescription: leads\nsubagentDefaults:\n  model: openai:cheap\n  disallowedTools: [Bash]\n---\nYou lead.\n"
      )
      writeFileSync(join(cwd, ".dsh", "agents", "worker.md"), "---\ndescription: works\n---\nYou work.\n")
      const home = makeHome(`[subagents]\nmodel = "openai:global"\n`)
      const env = { DSH_HOME: home, DSH_RESIDENT: "0", OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: "sk-test" }
      const r = await runDsh(["run", "-p", "--allow", "subagent", "--model", "openai:main", "--agent", "lead", "PARENT"], { cwd, env })
      expect(r.code, r.stderr).toBe(0)
      const of = (prefix: string) => fake.requests.find((x) => firstUser(x).startsWith(prefix))!
      expect(body(of("PARENT")).model).toBe("main")
      // lead's child: lead's default model (over [subagents] model), and no Bash.
      expect(body(of("CHILD")).model).toBe("cheap")
      expect(toolNames(of("CHILD"))).toContain("Read")
      expect(toolNames(of("CHILD"))).not.toContain("Bash")
      // The child's own child is not lead's: the global default and its full tool set.
      expect(body(of("GRAND")).model).toBe("global")
      expect(toolNames(of("GRAND"))).toContain("Bash")
    } finally {
      await fake.close()
    }
  })
})
