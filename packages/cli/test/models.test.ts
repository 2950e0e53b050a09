import { FakeAnthropicServer } from "@dsh/llm-anthropic/testing"
import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { makeHome, runDsh, sessionIds, tempDir } from "./support.ts"

interface Body {
  readonly model: string
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: unknown }>
  readonly reasoning_effort?: string
  readonly thinking?: unknown
}
const body = (r: FakeOpenAIServer.FakeRequest) => r.body as Body
const text = (content: unknown) => (typeof content === "string" ? content : JSON.stringify(content))
const firstUser = (r: FakeOpenAIServer.FakeRequest) => text(body(r).messages.find((m) => m.role === "user")?.content)
const toolResults = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.filter((m) => m.role === "tool").map((m) => text(m.content))
const childOf = (server: { requests: ReadonlyArray<FakeOpenAIServer.FakeRequest> }, prompt: string) => server.requests.find((r) => firstUser(r) === prompt)

const usage = { input: 1000, output: 100 }
const CONFIG = `
[models]
cheap = "openai:cheap-model"

[subagents]
model = "cheap"

[pricing."openai:main-model"]
input = 10
output = 20

[pricing.cheap]
input = 1
output = 2
`
const MAIN_CALL = 0.012 // 1000 × $10/M + 100 × $20/M
const CHILD_CALL = 0.0012 // 1000 × $1/M + 100 × $2/M

describe("models: aliases, the children's default, fallback, thinking and cost", () => {
  it("children run on [subagents] model through a [models] alias; a bad override falls back with a note; thinking reaches the adapter; cost everywhere", async () => {
    const server = await FakeOpenAIServer.startFakeOpenAIServer({
      respond: (r) => {
        if (firstUser(r).startsWith("CHILD")) return { text: `${firstUser(r).toLowerCase()} done`, usage }
        const messages = body(r).messages
        const lastUserAt = messages.findLastIndex((m) => m.role === "user")
        const last = text(messages[lastUserAt]?.content)
        const answered = messages.slice(lastUserAt).some((m) => m.role === "tool")
        if (last.includes("[subagent announcement]")) return { text: "heard it", usage }
        if (last === "go") {
          return answered ? { text: "all done", usage } : {
            toolCalls: [
              { name: "subagent", arguments: { description: "one", prompt: "CHILD one", thinking: "high" } },
              { name: "subagent", arguments: { description: "two", prompt: "CHILD two", model: "gemini-3-pro" } }
            ],
            usage
          }
        }
        // The follow-up: one background child; its announcement wakes the main agent.
        return answered ? { text: "started", usage } : { toolCalls: [{ name: "subagent", arguments: { description: "three", prompt: "CHILD three", background: true } }], usage }
      }
    })
    try {
      const home = makeHome(CONFIG)
      const env = { DSH_HOME: home, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" }
      const r = await runDsh(["run", "--allow", "subagent", "--model", "openai:main-model", "--output-format", "json", "go"], { cwd: tempDir(), env })
      expect(r.stderr).toBe("")
      expect(r.code).toBe(0)
      const out = JSON.parse(r.stdout) as { sessionId: string; cost: number; subagents: Array<{ name: string; cost: number }> }
      // The main agent's two calls at its price; each child's at the children's price.
      expect(out.cost).toBeCloseTo(2 * MAIN_CALL, 10)
      expect(out.subagents.map((s) => s.name).sort()).toEqual(["coder-1", "coder-2"])
      for (const s of out.subagents) expect(s.cost).toBeCloseTo(CHILD_CALL, 10)
      // What the model servers were sent.
      const one = childOf(server, "CHILD one")!
      expect(body(one).model).toBe("cheap-model")
      expect(body(one).reasoning_effort).toBe("high")
      const two = childOf(server, "CHILD two")!
      expect(body(two).model).toBe("cheap-model")
      expect(body(two).reasoning_effort).toBeUndefined()
      expect(body(server.requests[0]!).model).toBe("main-model")
      // The fallback is said in the child's result, as the parent's model read it.
      const results = toolResults(server.requests.find((q) => toolResults(q).some((t) => t.includes("child two done")))!)
      const noted = results.find((t) => t.includes("child two done"))!
      expect(noted).toContain("Notes: the call's model \"gemini-3-pro\" cannot be used")
      expect(noted).toContain("it ran on openai:cheap-model")
      expect(results.find((t) => t.includes("child one done"))).toContain("· $0.0012]")

      // subagents list and info carry the cost; info records the model and the reasoning effort.
      const id = out.sessionId
      const list = JSON.parse((await runDsh(["subagents", "list", "--session", id, "--json"], { env })).stdout) as { subagents: Array<{ name: string; cost: number }> }
      for (const s of list.subagents) expect(s.cost).toBeCloseTo(CHILD_CALL, 10)
      const infos = await Promise.all(["coder-1", "coder-2"].map(async (h) => JSON.parse((await runDsh(["subagents", "info", h, "--session", id, "--json"], { env })).stdout) as { model: string; thinking?: string; cost: number; description: string }))
      const thought = infos.find((i) => i.description === "one")!
      expect(thought).toMatchObject({ model: "openai:cheap-model", thinking: "high" })
      expect(thought.cost).toBeCloseTo(CHILD_CALL, 10)
      expect(infos.find((i) => i.description === "two")?.thinking).toBeUndefined()
      const listed = await runDsh(["subagents", "list", "--session", id], { env })
      expect(listed.stdout).toContain("$0.0012")
      // The child's transcript records the reasoning effort of its turn.
      const thinker = ["coder-1", "coder-2"][infos.indexOf(thought)]!
      const wire = readFileSync(join(home, "sessions", id, "agents", thinker, "wire.jsonl"), "utf8")
      expect(wire).toMatch(/"type":"turn-start".*"thinking":"high"/)

      // A background child's announcement carries its cost: two calls, its run and its announce step.
      const follow = await runDsh(["run", "--allow", "subagent", "--session", id, "--output-format", "json", "and one in the background"], { env })
      expect(JSON.parse(follow.stdout)).toMatchObject({ status: "completed", result: "heard it" })
      const announcement = server.requests.flatMap((q) => body(q).messages).map((m) => text(m.content)).find((t) => t.includes("[subagent announcement]"))!
      expect(announcement).toContain(`Cost: $${(2 * CHILD_CALL).toFixed(4)}`)
    } finally {
      await server.close()
    }
  }, 60_000)

  it("anthropic: thinking becomes a thinking budget; a bare vendor id picks the adapter", async () => {
    const server = await FakeAnthropicServer.startFakeAnthropicServer({
      respond: (r) => {
        const first = firstUser(r)
        if (first === "CHILD think") return { text: "thought hard", usage }
        return toolResults(r).length > 0 || body(r).messages.some((m) => text(m.content).includes("tool_result"))
          ? { text: "ok", usage }
          : { toolCalls: [{ name: "subagent", arguments: { description: "t", prompt: "CHILD think", thinking: "medium", model: "claude-haiku-4-5" } }], usage }
      }
    })
    try {
      const r = await runDsh(["run", "--allow", "subagent", "--model", "sonnet", "--output-format", "json", "think"], {
        cwd: tempDir(),
        env: { DSH_HOME: makeHome(), ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-test" }
      })
      expect(r.code).toBe(0)
      const main = body(server.requests[0]!)
      // `sonnet` is the shipped alias; the main agent asked for no thinking.
      expect(main.model).toBe("claude-sonnet-4-5")
      expect(main.thinking).toBeUndefined()
      const child = body(childOf(server, "CHILD think")!)
      expect(child.model).toBe("claude-haiku-4-5")
      expect(child.thinking).toEqual({ type: "enabled", budget_tokens: 7168 }) // medium (8192), kept 1024 under max_tokens (8192)
    } finally {
      await server.close()
    }
  }, 60_000)

  it("model settings that cannot be used are usage errors naming the key; nothing runs", async () => {
    // Every key's checks are unit-tested in @dsh/harness; here, one of each kind through the CLI.
    const cases: Array<[string, RegExp]> = [
      ["[pricing.\"openai:x\"]\ninput = -1\noutput = 2\n", /\[pricing\."openai:x"\] input = -1 is not allowed: it must be a number from 0 to 100000/],
      ["[models]\nfast = \"gemini-3-pro\"\n", /\[models\] fast = "gemini-3-pro" cannot be used: "gemini-3-pro" is not a model dsh can resolve/]
    ]
    for (const [config, message] of cases) {
      const home = makeHome(config)
      const r = await runDsh(["run", "hello"], { cwd: tempDir(), env: { DSH_HOME: home } })
      expect(r.code, config).toBe(2)
      expect(r.stderr.trim().split("\n"), config).toHaveLength(1)
      expect(r.stderr, config).toMatch(message)
      expect(sessionIds(home)).toEqual([])
    }
    const list = await runDsh(["agents", "list"], { env: { DSH_HOME: makeHome(cases[1]![0]) } })
    expect(list.code).toBe(2)
  }, 60_000)
})
