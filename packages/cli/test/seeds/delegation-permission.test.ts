import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { describe, expect, it } from "vitest"
import { makeHome, runDsh, tempDir } from "../support.ts"

// Seed: kimi-code-agents-and-subagents, "调用方式": every dispatch is an approval request unless
// an allow rule (or YOLO) covers it. dsh asks only for children that can write or are another
// vendor's agents; read-only children (explore, plan) run without asking.
interface Body {
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: string | null }>
}
const body = (r: FakeOpenAIServer.FakeRequest) => r.body as Body
const firstUser = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.find((m) => m.role === "user")?.content ?? ""
const step = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.filter((m) => m.role === "assistant").length
const toolResults = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.filter((m) => m.role === "tool").map((m) => m.content ?? "")

/** The main agent delegates to each of `agents` in one response, then stops. */
const server = (agents: ReadonlyArray<string>) =>
  FakeOpenAIServer.startFakeOpenAIServer({
    respond: (r) => {
      if (firstUser(r).startsWith("CHILD")) return { text: `${firstUser(r)} done` }
      return step(r) === 0
        ? { toolCalls: agents.map((agent) => ({ name: "subagent", arguments: { description: agent, agent, prompt: `CHILD ${agent}` } })) }
        : { text: "main done" }
    }
  })

const run = async (agents: ReadonlyArray<string>, flags: ReadonlyArray<string>, config?: string) => {
  const fake = await server(agents)
  try {
    const env = { DSH_HOME: makeHome(config), DSH_RESIDENT: "0", OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: "sk-test" }
    const r = await runDsh(["run", "-p", ...flags, "--model", "openai:any", "--output-format", "json", "PARENT"], { cwd: tempDir(), env })
    expect(r.code).toBe(0)
    const main = fake.requests.filter((q) => !firstUser(q).startsWith("CHILD"))
    return { results: toolResults(main.at(-1)!), children: fake.requests.filter((q) => firstUser(q).startsWith("CHILD")).map(firstUser) }
  } finally {
    await fake.close()
  }
}

const vendor = "[acp.agents.other]\ncommand = \"/nonexistent/other-agent\"\ndescription = \"another vendor's agent\"\n"

describe("seed: a delegation is a permission subject", () => {
  it("default mode with -p: explore and plan run, coder and a vendor agent are denials the model reads", async () => {
    const { results, children } = await run(["explore", "plan", "coder", "acp:other"], [], vendor)
    expect(children.sort()).toEqual(["CHILD explore", "CHILD plan"])
    expect(results[0]).toContain("CHILD explore done")
    expect(results[1]).toContain("CHILD plan done")
    expect(results[2]).toMatch(/^Error: permission denied: .*subagent\(coder\)/)
    expect(results[3]).toMatch(/^Error: permission denied: .*subagent\(acp:other\)/)
  })

  it("an allow rule lets the write-capable child through: --allow 'subagent(coder)'", async () => {
    const { children } = await run(["coder"], ["--allow", "subagent(coder)"])
    expect(children).toEqual(["CHILD coder"])
  })

  it("config allow works too, and an ask rule still asks for explore (a denial with -p)", async () => {
    const { results, children } = await run(["coder", "explore"], [], "[permissions]\nallow = [\"subagent(coder)\"]\nask = [\"subagent(explore)\"]\n")
    expect(children).toEqual(["CHILD coder"])
    expect(results[1]).toMatch(/^Error: permission denied/)
  })
})
