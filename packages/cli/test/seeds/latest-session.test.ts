import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { makeHome, runDsh, tempDir } from "../support.ts"

// DESIGN "Additions of the next wave": `dsh subagents …` without `--session` acts on the working
// directory's latest session (as `dsh run --continue` picks it); so does `dsh sessions report`.
interface Body {
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: string | null }>
}
const body = (r: FakeOpenAIServer.FakeRequest) => r.body as Body
const firstUser = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.find((m) => m.role === "user")?.content ?? ""
const step = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.filter((m) => m.role === "assistant").length

describe("seed: the latest session of the working directory by default", () => {
  it("subagents list/info and sessions report pick it, name it on stderr, and print what --session prints", async () => {
    const fake = await FakeOpenAIServer.startFakeOpenAIServer({
      respond: (r) =>
        firstUser(r).startsWith("CHILD")
          ? { text: "found" }
          : step(r) === 0
          ? { toolCalls: [{ name: "subagent", arguments: { description: "look", agent: "explore", prompt: `CHILD ${firstUser(r)}` } }] }
          : { text: "main done" }
    })
    try {
      const env = { DSH_HOME: makeHome(), DSH_RESIDENT: "0", OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: "sk-test" }
      const here = tempDir("dsh-here-")
      const elsewhere = tempDir("dsh-elsewhere-")
      const session = async (cwd: string, prompt: string) => {
        const r = await runDsh(["run", "-p", "--model", "openai:any", "--output-format", "json", prompt], { cwd, env })
        expect(r.code, r.stderr).toBe(0)
        return (JSON.parse(r.stdout) as { sessionId: string }).sessionId
      }
      await session(here, "older")
      const latest = await session(here, "latest")
      // A newer session of another directory is not this directory's latest.
      await session(elsewhere, "other")

      const picked = `dsh: session ${latest} (the latest in ${here}; --session ID picks another)\n`
      const list = await runDsh(["subagents", "list", "--json"], { cwd: here, env })
      expect(list.code).toBe(0)
      expect(list.stderr).toBe(picked)
      const explicit = await runDsh(["subagents", "list", "--json", "--session", latest], { cwd: here, env })
      expect(explicit.stderr).toBe("")
      expect(list.stdout).toBe(explicit.stdout)

      const info = await runDsh(["subagents", "info", "explore-1"], { cwd: here, env })
      expect(info.stderr).toBe(picked)
      expect(info.stdout).toBe((await runDsh(["subagents", "info", "explore-1", "--session", latest], { env })).stdout)

      const report = await runDsh(["sessions", "report", "--html", "r.html"], { cwd: here, env })
      expect(report.code, report.stderr).toBe(0)
      expect(report.stderr).toBe(picked)
      expect(report.stdout).toBe(`${join(here, "r.html")}: 1 subagent, ${/, (\S+) tokens/.exec(report.stdout)?.[1]} tokens\n`)
      expect(existsSync(join(here, "r.html"))).toBe(true)

      // A directory without sessions is bad usage, with one line on stderr.
      const none = await runDsh(["subagents", "list"], { cwd: tempDir("dsh-empty-"), env })
      expect(none.code).toBe(2)
      expect(none.stderr).toMatch(/^dsh: no session to inspect in .* \(use --session ID\)\n$/)
    } finally {
      await fake.close()
    }
  })
})
