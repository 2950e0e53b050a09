import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { ProcessChecks } from "@dsh/subprocess/testing"
import { describe, expect, it } from "vitest"
import { makeHome, runDsh, tempDir } from "../support.ts"

// Seed: kimi-code-agents-and-subagents, "内置 subagent": `coder` can run shell commands in the
// background, keep a todo list, enter plan mode and use Agent Skills.
interface Body {
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: string | null }>
  readonly tools?: ReadonlyArray<{ readonly function: { readonly name: string } }>
}
const body = (r: FakeOpenAIServer.FakeRequest) => r.body as Body
const firstUser = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.find((m) => m.role === "user")?.content ?? ""
const system = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.find((m) => m.role === "system")?.content ?? ""
const step = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.filter((m) => m.role === "assistant").length
const lastTool = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.filter((m) => m.role === "tool").at(-1)?.content ?? ""
const call = (name: string, args: Record<string, unknown>) => ({ toolCalls: [{ name, arguments: args }] })

describe("seed: coder's own tools", () => {
  it("coder keeps a todo list, runs a background command (its run settles with it) and loads a skill", async () => {
    const cwd = tempDir()
    mkdirSync(join(cwd, ".git"))
    mkdirSync(join(cwd, ".agents", "skills", "release"), { recursive: true })
    writeFileSync(join(cwd, ".agents", "skills", "release", "SKILL.md"), "---\nname: release\ndescription: Cut a release of this repo.\n---\nTag it vX.\n")
    const tools = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.filter((m) => m.role === "tool").map((m) => m.content ?? "")
    const fake = await FakeOpenAIServer.startFakeOpenAIServer({
      respond: (r) => {
        if (firstUser(r).startsWith("CHILD")) {
          if (step(r) === 0) {
            return call("TodoWrite", { todos: [{ content: "Start the server", status: "in_progress", activeForm: "Starting the server" }, { content: "Report", status: "pending" }] })
          }
          if (step(r) === 1) return call("BashBackground", { command: "echo $$ > server.pid; echo listening; sleep 1; echo settled > finished" })
          // The output arrives when the command writes it: read until it is there.
          if (!tools(r).some((t) => t.includes("listening"))) return call("BashOutput", { id: "bg-1" })
          if (!tools(r).some((t) => t.startsWith("# Skill"))) return call("Skill", { name: "release" })
          return { text: "coder done" }
        }
        return step(r) === 0 ? call("subagent", { description: "serve", agent: "coder", prompt: "CHILD start the server" }) : { text: "main done" }
      }
    })
    try {
      const home = makeHome("[sandbox]\nmode = \"off\"\n")
      const env = { DSH_HOME: home, DSH_RESIDENT: "0", OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: "sk-test" }
      const r = await runDsh(["run", "-p", "--yolo", "--model", "openai:any", "--output-format", "json", "PARENT"], { cwd, env })
      expect(r.stderr).toBe("")
      expect(r.code).toBe(0)
      const { sessionId } = JSON.parse(r.stdout) as { sessionId: string }
      const child = fake.requests.filter((q) => firstUser(q).startsWith("CHILD"))
      const offered = (body(child[0]!).tools ?? []).map((t) => t.function.name)
      expect(offered).toEqual(expect.arrayContaining(["TodoWrite", "BashBackground", "BashOutput", "BashStop", "EnterPlanMode", "ExitPlanMode", "Skill"]))
      // Skills are listed by name and description; loaded on use.
      expect(system(child[0]!)).toContain("- `release`: Cut a release of this repo.")
      expect(lastTool(child.at(-1)!)).toContain("Tag it vX.")
      // The todo list is an event of the child's transcript.
      const wire = readFileSync(join(home, "sessions", sessionId, "agents", "coder-1", "wire.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as { type: string; todos?: unknown })
      expect(wire.find((e) => e.type === "todo")?.todos).toEqual([
        { content: "Start the server", status: "in_progress", activeForm: "Starting the server" },
        { content: "Report", status: "pending" }
      ])
      // The coder's run was reported complete only after its background command settled.
      expect(readFileSync(join(cwd, "finished"), "utf8")).toBe("settled\n")
      const pid = Number(readFileSync(join(cwd, "server.pid"), "utf8"))
      expect(pid).toBeGreaterThan(0)
      expect(ProcessChecks.isGone(pid)).toBe(true)
    } finally {
      await fake.close()
    }
  })
})

describe("seed: per-agent credentials", () => {
  it("[agents.explore] api_key_env and base_url reach its own server; the main agent keeps the main key", async () => {
    const main = await FakeOpenAIServer.startFakeOpenAIServer({
      respond: (r) => step(r) === 0 ? call("subagent", { description: "look", agent: "explore", prompt: "CHILD look around" }) : { text: "main done" }
    })
    const own = await FakeOpenAIServer.startFakeOpenAIServer({ respond: () => ({ text: "explore done" }) })
    try {
      const home = makeHome(`[agents.explore]\napi_key_env = "EXPLORE_KEY"\nbase_url = "${own.url}"\n`)
      const env = { DSH_HOME: home, DSH_RESIDENT: "0", OPENAI_BASE_URL: main.url, OPENAI_API_KEY: "sk-main", EXPLORE_KEY: "sk-explore" }
      const r = await runDsh(["run", "-p", "--model", "openai:any", "PARENT"], { cwd: tempDir(), env })
      expect(r.code).toBe(0)
      expect(r.stdout.trim()).toBe("main done")
      expect(main.requests.map((q) => q.headers.authorization)).toEqual(["Bearer sk-main", "Bearer sk-main"])
      expect(main.requests.some((q) => firstUser(q).startsWith("CHILD"))).toBe(false)
      expect(own.requests.map((q) => [q.headers.authorization, firstUser(q)])).toEqual([["Bearer sk-explore", "CHILD look around"]])
    } finally {
      await main.close()
      await own.close()
    }
  })

  it("an agent without its own key variable set falls back to the main key", async () => {
    const fake = await FakeOpenAIServer.startFakeOpenAIServer({
      respond: (r) => firstUser(r).startsWith("CHILD") ? { text: "explore done" } : step(r) === 0 ? call("subagent", { description: "look", agent: "explore", prompt: "CHILD look" }) : { text: "main done" }
    })
    try {
      const home = makeHome(`[agents.explore]\napi_key_env = "UNSET_KEY"\n`)
      const env = { DSH_HOME: home, DSH_RESIDENT: "0", OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: "sk-main" }
      const r = await runDsh(["run", "-p", "--model", "openai:any", "PARENT"], { cwd: tempDir(), env })
      expect(r.code).toBe(0)
      expect(fake.requests.map((q) => q.headers.authorization)).toEqual(["Bearer sk-main", "Bearer sk-main", "Bearer sk-main"])
    } finally {
      await fake.close()
    }
  })

  it("a bad [agents.*] key is a one-line usage error", async () => {
    const home = makeHome(`[agents.explore]\napi_key_env = "not a name"\n`)
    const r = await runDsh(["run", "-p", "--model", "scripted", "hi"], { cwd: tempDir(), env: { DSH_HOME: home, DSH_RESIDENT: "0" } })
    expect(r.code).toBe(2)
    expect(r.stderr.trim().split("\n")).toHaveLength(1)
    expect(r.stderr).toContain("[agents.explore] api_key_env")
  })
})

describe("seed: coder's plan mode", () => {
  const planRun = async (flags: ReadonlyArray<string>) => {
    const cwd = tempDir()
    const fake = await FakeOpenAIServer.startFakeOpenAIServer({
      respond: (r) => {
        if (firstUser(r).startsWith("CHILD")) {
          const results = body(r).messages.filter((m) => m.role === "tool").map((m) => m.content ?? "")
          if (step(r) === 0) return call("EnterPlanMode", {})
          if (step(r) === 1) return call("Write", { path: "early.txt", content: "too soon" })
          if (step(r) === 2) return call("ExitPlanMode", { plan: "1. write plan.txt" })
          if (step(r) === 3) return call("Write", { path: "plan.txt", content: "done" })
          return { text: `coder saw: ${results.map((t) => t.split("\n")[0]).join(" | ")}` }
        }
        return step(r) === 0 ? call("subagent", { description: "plan", agent: "coder", prompt: "CHILD plan then write" }) : { text: lastTool(r) }
      }
    })
    try {
      const env = { DSH_HOME: makeHome(), DSH_RESIDENT: "0", OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: "sk-test" }
      const r = await runDsh(["run", "-p", "--allow", "subagent", "--allow", "Write", ...flags, "--model", "openai:any", "PARENT"], { cwd, env })
      expect(r.code).toBe(0)
      return { out: r.stdout, cwd }
    } finally {
      await fake.close()
    }
  }

  it("write tools are refused in plan mode even when allowed; without approval (-p) the plan stays a plan", async () => {
    const { out, cwd } = await planRun([])
    expect(out).toContain("| Write is not available in plan mode")
    expect(out).toContain("ExitPlanMode")
    expect(out).toContain("permission denied: ExitPlanMode needs approval")
    expect(() => readFileSync(join(cwd, "early.txt"))).toThrow()
    expect(() => readFileSync(join(cwd, "plan.txt"))).toThrow()
  })

  it("an approved plan (here an allow rule for ExitPlanMode) lets the coder act", async () => {
    const { out, cwd } = await planRun(["--allow", "ExitPlanMode"])
    expect(out).toContain("The user approved the plan")
    expect(() => readFileSync(join(cwd, "early.txt"))).toThrow()
    expect(readFileSync(join(cwd, "plan.txt"), "utf8")).toBe("done")
  })
})
