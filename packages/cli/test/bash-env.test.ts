import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { describe, expect, it } from "vitest"
import { makeHome, runDsh, tempDir } from "./support.ts"

const toolOutput = (r: FakeOpenAIServer.FakeRequest) =>
  (r.body as { messages: Array<{ role: string; content: string }> }).messages.find((m) => m.role === "tool")?.content ?? ""

describe("the Bash tool's environment in dsh run", () => {
  for (const configured of [false, true]) {
    it(configured ? "passes a secret that config.toml names under [bash] env" : "does not pass a parent secret to the command", async () => {
      const server = await FakeOpenAIServer.startFakeOpenAIServer({
        respond: (r) => (r.body as { messages: Array<{ role: string }> }).messages.some((m) => m.role === "tool")
          ? { text: "done" }
          : { toolCalls: [{ name: "Bash", arguments: { command: "echo \"key=[$SOME_API_KEY]\"" } }] }
      })
      try {
        const home = makeHome(configured ? "[bash]\nenv = [\"SOME_API_KEY\"]\n" : undefined)
        const r = await runDsh(["run", "--model", "openai:any", "--allow", "Bash(echo *)", "print the key"], {
          cwd: tempDir(),
          env: { DSH_HOME: home, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test", SOME_API_KEY: "s3cret" }
        })
        expect(r.code).toBe(0)
        expect(toolOutput(server.requests[1]!)).toContain(configured ? "key=[s3cret]" : "key=[]")
      } finally {
        await server.close()
      }
    })
  }
})
