import { FakeAnthropicServer } from "@dsh/llm-anthropic/testing"
import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { FAST_RETRIES, makeHome, runDsh, sessionIds, tempDir } from "./support.ts"

const project = () => {
  const dir = tempDir("dsh-project-")
  writeFileSync(join(dir, "notes.txt"), "the secret word is PAPAYA\n")
  return dir
}

describe("dsh run against real HTTP model servers", () => {
  it("openai: runs Read through a tool call split across chunks and returns the final answer", async () => {
    const server = await FakeOpenAIServer.startFakeOpenAIServer({
      replies: [
        { text: "Let me read it.", toolCalls: [{ name: "Read", arguments: { path: "notes.txt" } }], usage: { input: 50, output: 10 } },
        { text: "The secret word is PAPAYA.", usage: { input: 80, output: 7 } }
      ]
    })
    try {
      const home = makeHome()
      const cwd = project()
      const r = await runDsh(["run", "-p", "--model", "openai:any", "--output-format", "json", "What is the secret word in notes.txt?"], {
        cwd,
        env: { DSH_HOME: home, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" }
      })
      expect(r.stderr).toBe("")
      expect(r.code).toBe(0)
      const out = JSON.parse(r.stdout) as { sessionId: string; status: string; result: string; usage: { totalTokens: number }; subagents: [] }
      expect(out).toMatchObject({ status: "completed", result: "The secret word is PAPAYA.", subagents: [] })
      expect(out.usage.totalTokens).toBe(147)
      // The tool really ran: its output went back to the model in the second request.
      const second = server.requests[1]?.body as { messages: Array<{ role: string; content: string }> }
      expect(second.messages.find((m) => m.role === "tool")?.content).toContain("the secret word is PAPAYA")
      // The session keeps what happened.
      const wire = readFileSync(join(home, "sessions", out.sessionId, "wire.jsonl"), "utf8")
      expect(wire).toContain("\"type\":\"tool-result\"")
    } finally {
      await server.close()
    }
  })

  it("invalid tool arguments go back to the model as an English message it can act on", async () => {
    // The CLI's bundle keeps only zod's English messages: this is what the model reads.
    const server = await FakeOpenAIServer.startFakeOpenAIServer({
      replies: [
        { toolCalls: [{ name: "Read", arguments: { path: 42 } }], usage: { input: 5, output: 5 } },
        { text: "I will pass a string.", usage: { input: 5, output: 5 } }
      ]
    })
    try {
      const r = await runDsh(["run", "--model", "openai:any", "--output-format", "json", "read it"], {
        cwd: project(),
        env: { DSH_HOME: makeHome(), OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" }
      })
      expect(r.code).toBe(0)
      const second = server.requests[1]?.body as { messages: Array<{ role: string; content: string }> }
      expect(second.messages.find((m) => m.role === "tool")?.content).toBe(
        "Error: invalid arguments for Read: path: Invalid input: expected string, received number"
      )
    } finally {
      await server.close()
    }
  })

  it("anthropic: the same task through the Messages API", async () => {
    const server = await FakeAnthropicServer.startFakeAnthropicServer({
      replies: [
        { toolCalls: [{ name: "Read", arguments: { path: "notes.txt" } }], usage: { input: 40, output: 9 } },
        { text: "PAPAYA", usage: { input: 70, output: 2 } }
      ]
    })
    try {
      const home = makeHome()
      const r = await runDsh(["run", "--model", "anthropic:any", "--output-format", "json", "secret word?"], {
        cwd: project(),
        env: { DSH_HOME: home, ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-test" }
      })
      expect(r.code).toBe(0)
      expect(JSON.parse(r.stdout)).toMatchObject({ status: "completed", result: "PAPAYA" })
      const second = JSON.stringify(server.requests[1]?.body)
      expect(second).toContain("tool_result")
      expect(second).toContain("the secret word is PAPAYA")
    } finally {
      await server.close()
    }
  })

  it("a server that keeps answering 500 is retried a bounded number of times, then the run fails with the cause", async () => {
    const server = await FakeOpenAIServer.startFakeOpenAIServer({ respond: () => ({ status: 500, errorBody: { error: { message: "upstream exploded" } } }) })
    try {
      const home = makeHome(FAST_RETRIES)
      const r = await runDsh(["run", "--model", "openai:any", "--output-format", "json", "hello"], {
        cwd: project(),
        env: { DSH_HOME: home, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" }
      })
      expect(r.code).toBe(1)
      expect(server.requests.length).toBe(3)
      expect(r.stderr.trim().split("\n")).toHaveLength(1)
      expect(r.stderr).toContain("upstream exploded")
      const out = JSON.parse(r.stdout) as { sessionId: string; status: string }
      expect(out.status).toBe("failed")
      // The session keeps what happened: the prompt and the failed turn.
      const list = await runDsh(["sessions", "list", "--json"], { env: { DSH_HOME: home } })
      expect(JSON.parse(list.stdout).sessions).toMatchObject([{ id: out.sessionId, status: "failed" }])
      const wire = readFileSync(join(home, "sessions", out.sessionId, "wire.jsonl"), "utf8")
      expect(wire).toContain("hello")
      expect(wire).toContain("\"status\":\"failed\"")
    } finally {
      await server.close()
    }
  })

  it("--continue and --session restore the full history", async () => {
    const server = await FakeOpenAIServer.startFakeOpenAIServer({ replies: [{ text: "Noted: 42." }, { text: "You said 42." }, { text: "Still 42." }] })
    try {
      const home = makeHome()
      const cwd = project()
      const env = { DSH_HOME: home, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" }
      const first = await runDsh(["run", "--model", "openai:any", "--output-format", "json", "Remember the number 42."], { cwd, env })
      const id = (JSON.parse(first.stdout) as { sessionId: string }).sessionId
      const second = await runDsh(["run", "--continue", "--output-format", "json", "Which number?"], { cwd, env })
      expect(JSON.parse(second.stdout)).toMatchObject({ sessionId: id, result: "You said 42." })
      const third = await runDsh(["run", "--session", id, "And now?"], { env })
      expect(third.stdout.trim()).toBe("Still 42.")
      const messages = (server.requests[2]?.body as { messages: Array<{ content: string }> }).messages.map((m) => m.content)
      expect(messages).toEqual(expect.arrayContaining(["Remember the number 42.", "Noted: 42.", "Which number?", "You said 42.", "And now?"]))
      expect(sessionIds(home)).toEqual([id])
    } finally {
      await server.close()
    }
  })
})
