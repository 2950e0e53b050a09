import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { describe, expect, it } from "vitest"
import { makeHome, runDsh, tempDir } from "../support.ts"

// Seed: kimi-code-agents-and-subagents, "内置 subagent": `coder` may dispatch its own nested
// subagents when a task splits naturally; the depth limit still caps it.
interface Body {
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: string | null }>
  readonly tools?: ReadonlyArray<{ readonly function: { readonly name: string } }>
}
const body = (r: FakeOpenAIServer.FakeRequest) => r.body as Body
const firstUser = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.find((m) => m.role === "user")?.content ?? ""
const step = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.filter((m) => m.role === "assistant").length
const call = (name: string, args: Record<string, unknown>) => ({ toolCalls: [{ name, arguments: args }] })

const server = () =>
  FakeOpenAIServer.startFakeOpenAIServer({
    respond: (r) => {
      const who = firstUser(r)
      if (who.startsWith("GRANDCHILD")) return { text: "the config is dsh.toml" }
      if (who.startsWith("CHILD")) {
        const offered = (body(r).tools ?? []).some((t) => t.function.name === "subagent")
        if (!offered) return { text: "coder had no subagent tool" }
        return step(r) === 0 ? call("subagent", { description: "find config", agent: "explore", prompt: "GRANDCHILD find the config" }) : { text: "coder heard: the config is dsh.toml" }
      }
      return step(r) === 0 ? call("subagent", { description: "change", agent: "coder", prompt: "CHILD change the config" }) : { text: "main done" }
    }
  })

const run = async (config?: string) => {
  const fake = await server()
  try {
    const home = makeHome(config)
    const env = { DSH_HOME: home, DSH_RESIDENT: "0", OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: "sk-test" }
    // Delegating to `coder` asks in the default mode; this test is about depth, so it is allowed.
    const r = await runDsh(["run", "-p", "--allow", "subagent", "--model", "openai:any", "--output-format", "json", "PARENT"], { cwd: tempDir(), env })
    expect(r.code).toBe(0)
    const out = JSON.parse(r.stdout) as { sessionId: string }
    const list = await runDsh(["subagents", "list", "--session", out.sessionId, "--json"], { env })
    return { list: JSON.parse(list.stdout) as { subagents: ReadonlyArray<{ name: string; parent: string; depth: number }> }, requests: fake.requests }
  } finally {
    await fake.close()
  }
}

describe("seed: coder delegates by default", () => {
  it("with the default depth, a coder child spawns its own explore", async () => {
    const { list, requests } = await run()
    expect(list.subagents.map((s) => [s.name, s.parent, s.depth])).toEqual([["coder-1", "main", 1], ["explore-1", "coder-1", 2]])
    const coderLast = requests.filter((r) => firstUser(r).startsWith("CHILD")).at(-1)!
    expect(JSON.stringify(body(coderLast).messages)).toContain("the config is dsh.toml")
  })

  it("max_depth = 1 still caps it: the coder child is not offered subagent", async () => {
    const { list } = await run("[limits]\nmax_depth = 1\n")
    expect(list.subagents.map((s) => s.name)).toEqual(["coder-1"])
  })
})
