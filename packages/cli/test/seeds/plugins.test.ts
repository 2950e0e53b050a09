import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { makeHome, runDsh, tempDir } from "../support.ts"

// Seed: kimi-code-agents-and-subagents, "Agent 目录" (plugin agents: the manifest's `agents`
// or the plugin's `agents/`, above built-ins only) and "Agent 文件格式" / the SYSTEM.md variables
// (`${plugin_sections}`: the enabled plugins' Plugin Instructions block).
interface Body {
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: string | null }>
}
const systemOf = (r: FakeOpenAIServer.FakeRequest) => (r.body as Body).messages.find((m) => m.role === "system")?.content ?? ""

const plugin = (root: string) => {
  mkdirSync(join(root, "agents"), { recursive: true })
  writeFileSync(join(root, "plugin.json"), JSON.stringify({ name: "lint-kit" }))
  writeFileSync(join(root, "INSTRUCTIONS.md"), "Run the linter before you finish (LINT-RULE-42).\n")
  writeFileSync(join(root, "agents", "linter.md"), "---\ndescription: runs the linter\n---\nYou lint.\n")
  return root
}

describe("seed: plugins", () => {
  it("--plugin-dir and plugin_agent_dirs reach dsh agents list at the plugin scope", async () => {
    const cwd = tempDir()
    const root = plugin(join(cwd, "lint-kit"))
    mkdirSync(join(cwd, "team", "agents"), { recursive: true })
    writeFileSync(join(cwd, "team", "agents", "checker.md"), "---\ndescription: checks\n---\nYou check.\n")
    const home = makeHome(`plugin_agent_dirs = ["${join(cwd, "team", "agents")}"]\n`)
    const env = { DSH_HOME: home, DSH_RESIDENT: "0" }
    const r = await runDsh(["agents", "list", "--json", "--plugin-dir", "lint-kit"], { cwd, env })
    expect(r.code, r.stderr).toBe(0)
    const agents = (JSON.parse(r.stdout) as { agents: ReadonlyArray<{ name: string; scope: string; source: string }> }).agents
    expect(agents.find((a) => a.name === "linter")).toMatchObject({ scope: "plugin", source: join(root, "agents", "linter.md") })
    expect(agents.find((a) => a.name === "checker")).toMatchObject({ scope: "plugin" })
    const without = await runDsh(["agents", "list", "--json"], { cwd, env })
    expect((JSON.parse(without.stdout) as { agents: ReadonlyArray<{ name: string }> }).agents.map((a) => a.name)).not.toContain("linter")
  })

  it("renders the plugins' instructions as ${plugin_sections}, in the default prompt and in an agent file that places it", async () => {
    const fake = await FakeOpenAIServer.startFakeOpenAIServer({ respond: () => ({ text: "ok" }) })
    try {
      const cwd = tempDir()
      plugin(join(cwd, "lint-kit"))
      writeFileSync(join(cwd, "own.md"), "---\ndescription: own prompt\n---\nOWN PROMPT\n\n${plugin_sections}\n")
      writeFileSync(join(cwd, "bare.md"), "---\ndescription: bare prompt\n---\nBARE PROMPT\n")
      const home = makeHome()
      const env = { DSH_HOME: home, DSH_RESIDENT: "0", OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: "sk-test" }
      const run = (...extra: Array<string>) =>
        runDsh(["run", "-p", "--model", "openai:any", "--output-format", "json", "--plugin-dir", "lint-kit", ...extra, "hi"], { cwd, env })
      const runs = [await run(), await run("--agent-file", "own.md"), await run("--agent-file", "bare.md")]
      for (const r of runs) expect(r.code, r.stderr).toBe(0)
      const { sessionId } = JSON.parse(runs[0]!.stdout) as { sessionId: string }
      const [main, own, bare] = fake.requests.map(systemOf)
      expect(main).toContain("# Plugin Instructions\n\n## lint-kit\n\nRun the linter before you finish (LINT-RULE-42).")
      expect(own).toMatch(/^OWN PROMPT\n\n# Plugin Instructions\n\n## lint-kit\n/)
      // A prompt that places neither ${base_prompt} nor ${plugin_sections} owns itself.
      expect(bare).toBe("BARE PROMPT")
      // The plugins are bound to the session: a continued session keeps them, and cannot change them.
      const again = await runDsh(["run", "-p", "--model", "openai:any", "--session", sessionId, "more"], { cwd, env })
      expect(again.code, again.stderr).toBe(0)
      expect(systemOf(fake.requests[3]!)).toContain("LINT-RULE-42")
      const refused = await runDsh(["run", "-p", "--continue", "--plugin-dir", "lint-kit", "more"], { cwd, env })
      expect(refused.code).toBe(2)
      expect(refused.stderr.trim().split("\n")).toHaveLength(1)
    } finally {
      await fake.close()
    }
  })
})
