import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { makeHome, runDsh, tempDir } from "./support.ts"

interface Body {
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: string | null }>
  readonly tools?: ReadonlyArray<{ readonly function: { readonly name: string } }>
}
const body = (r: FakeOpenAIServer.FakeRequest) => r.body as Body
const firstUser = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.find((m) => m.role === "user")?.content ?? ""
/** Model calls already made since the latest user message. */
const step = (r: FakeOpenAIServer.FakeRequest) => {
  const ms = body(r).messages
  let i = ms.length - 1
  while (i >= 0 && ms[i]?.role !== "user") i--
  return ms.slice(i + 1).filter((m) => m.role === "assistant").length
}
const lastUser = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.filter((m) => m.role === "user").at(-1)?.content ?? ""
const toolNames = (r: FakeOpenAIServer.FakeRequest) => (body(r).tools ?? []).map((t) => t.function.name)

describe("agent files in dsh run", () => {
  it("a tool removed by disallowedTools is neither offered nor executable", async () => {
    const server = await FakeOpenAIServer.startFakeOpenAIServer({
      respond: (r) => step(r) === 0 ? { toolCalls: [{ name: "Bash", arguments: { command: "echo pwned > pwned.txt" } }] } : { text: "ok" }
    })
    try {
      const cwd = tempDir()
      const file = join(cwd, "careful.md")
      writeFileSync(file, "---\ndescription: a careful agent\ndisallowedTools: Bash, Write\n---\nYou are careful.\n")
      const r = await runDsh(["run", "--agent-file", file, "--model", "openai:any", "--output-format", "json", "try it"], {
        cwd,
        env: { DSH_HOME: makeHome(), OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" }
      })
      expect(r.code).toBe(0)
      expect(toolNames(server.requests[0]!)).not.toContain("Bash")
      expect(toolNames(server.requests[0]!)).toContain("Read")
      const tool = body(server.requests[1]!).messages.find((m) => m.role === "tool")
      expect(tool?.content).toMatch(/unknown tool "Bash"/)
      expect(body(server.requests[0]!).messages[0]?.content).toContain("You are careful.")
    } finally {
      await server.close()
    }
  })

  it("a created subagent survives a restart and can be delegated to; an existing name is refused", async () => {
    const server = await FakeOpenAIServer.startFakeOpenAIServer({
      respond: (r) => {
        if (firstUser(r) === "CHILD haiku please") return { text: "old pond, frog jumps in" }
        if (lastUser(r) === "PARENT create") {
          const create = { name: "create_subagent", arguments: { name: "haiku-writer", description: "writes haiku", systemPrompt: "You write haiku only." } }
          if (step(r) === 0) return { toolCalls: [create] }
          if (step(r) === 1) return { toolCalls: [create, { name: "create_subagent", arguments: { name: "coder", description: "x", systemPrompt: "x" } }] }
          return { text: "created" }
        }
        return step(r) === 0
          ? { toolCalls: [{ name: "subagent", arguments: { description: "haiku", agent: "haiku-writer", prompt: "CHILD haiku please" } }] }
          : { text: "delegated" }
      }
    })
    try {
      const home = makeHome()
      const env = { DSH_HOME: home, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" }
      const first = await runDsh(["run", "--allow", "subagent", "--model", "openai:any", "--output-format", "json", "PARENT create"], { cwd: tempDir(), env })
      const id = (JSON.parse(first.stdout) as { sessionId: string }).sessionId
      const refusals = body(server.requests[2]!).messages.filter((m) => m.role === "tool").slice(-2).map((m) => m.content)
      expect(refusals[0]).toMatch(/'haiku-writer' already exists/)
      expect(refusals[1]).toMatch(/'coder' already exists/)
      const second = await runDsh(["run", "--allow", "subagent", "--session", id, "--output-format", "json", "PARENT delegate"], { env })
      expect(JSON.parse(second.stdout)).toMatchObject({ status: "completed", subagents: [{ name: "haiku-writer-1", agent: "haiku-writer", status: "completed" }] })
      const child = server.requests.find((r) => firstUser(r) === "CHILD haiku please")!
      expect(body(child).messages[0]?.content).toContain("You write haiku only.")
    } finally {
      await server.close()
    }
  })
})

describe("dsh agents list", () => {
  it("reports resolved agents, skipped files with reasons, and trust", async () => {
    const project = tempDir("dsh-project-")
    mkdirSync(join(project, ".git"))
    mkdirSync(join(project, ".dsh", "agents"), { recursive: true })
    writeFileSync(join(project, ".dsh", "agents", "reviewer.md"), "---\ndescription: reviews code\ntools: Read, Grep\n---\nReview.\n")
    writeFileSync(join(project, ".dsh", "agents", "coder.md"), "---\ndescription: my coder\noverride: true\n---\nCode.\n")
    writeFileSync(join(project, ".dsh", "agents", "Broken Name.md"), "---\nname: Broken Name\ndescription: x\n---\nx\n")
    const home = makeHome()
    const list = await runDsh(["agents", "list", "--json"], { cwd: project, env: { DSH_HOME: home } })
    expect(list.code).toBe(0)
    const doc = JSON.parse(list.stdout) as {
      agents: Array<{ name: string; scope: string; source: string; tools: unknown; disallowedTools: unknown; subagents: unknown; override: boolean; description: string }>
      skipped: Array<{ path: string; reason: string }>
      warnings: Array<string>
      acpAgents: Array<unknown>
    }
    expect(Object.keys(doc)).toEqual(["agents", "skipped", "shadowed", "warnings", "acpAgents", "a2aAgents"])
    expect(doc.acpAgents).toEqual([])
    const reviewer = doc.agents.find((a) => a.name === "reviewer")!
    expect(reviewer).toMatchObject({ scope: "project", tools: ["Read", "Grep"], override: false })
    expect(Object.keys(reviewer).sort()).toEqual(["description", "disallowedTools", "disallowedToolsBind", "model", "name", "override", "scope", "source", "subagents", "tools"])
    expect(doc.agents.find((a) => a.name === "coder")?.scope).toBe("builtin")
    expect(doc.skipped.map((s) => s.reason).join("\n")).toMatch(/not trusted/)
    // A name in any case loads under its kebab-case form, with a note (as OpenCode and Copilot load it).
    expect(doc.agents.find((a) => a.name === "broken-name")?.source).toBe(join(project, ".dsh", "agents", "Broken Name.md"))
    expect(doc.warnings.join("\n")).toMatch(/name "Broken Name" is not kebab-case; dsh names this agent "broken-name"/)
    const trusted = await runDsh(["agents", "list", "--json", "--trust-project"], { cwd: project, env: { DSH_HOME: home } })
    expect((JSON.parse(trusted.stdout) as typeof doc).agents.find((a) => a.name === "coder")).toMatchObject({ scope: "project", override: true })
    // A recorded decision holds for later runs without the flag, until it is revoked.
    expect((await runDsh(["agents", "trust"], { cwd: project, env: { DSH_HOME: home } })).code).toBe(0)
    const recorded = await runDsh(["agents", "list", "--json"], { cwd: project, env: { DSH_HOME: home } })
    expect((JSON.parse(recorded.stdout) as typeof doc).agents.find((a) => a.name === "coder")?.scope).toBe("project")
    await runDsh(["agents", "untrust"], { cwd: project, env: { DSH_HOME: home } })
    const revoked = await runDsh(["agents", "list", "--json"], { cwd: project, env: { DSH_HOME: home } })
    expect((JSON.parse(revoked.stdout) as typeof doc).agents.find((a) => a.name === "coder")?.scope).toBe("builtin")
  })
})
