import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { makeHome, runDsh, tempDir } from "../support.ts"

// Seed: openclaw-sub-agents, "通知": the announce step runs in the sub-agent's session; a reply of
// exactly ANNOUNCE_SKIP sends nothing; the message is the stable template (Status from the
// runtime, Result from the announce step) with the stats line, session key, session id and
// transcript path.
interface Body {
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: string | null }>
}
const body = (r: FakeOpenAIServer.FakeRequest) => r.body as Body
const users = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.filter((m) => m.role === "user").map((m) => m.content ?? "")
const step = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.filter((m) => m.role === "assistant").length
const spawn = (prompt: string) => ({ name: "subagent", arguments: { description: prompt, agent: "explore", prompt, background: true } })

describe("seed: the announce step", () => {
  it("asks a background child for its announcement in its own session; ANNOUNCE_SKIP sends none but is recorded", async () => {
    const fake = await FakeOpenAIServer.startFakeOpenAIServer({
      respond: (r) => {
        const [first = "", ...rest] = users(r)
        const last = rest.at(-1) ?? first
        if (first.startsWith("CHILD")) {
          if (!last.startsWith("[announce step]")) return { text: `raw result of ${first}` }
          return first === "CHILD quiet" ? { text: "ANNOUNCE_SKIP" } : { text: "Found 3 TODOs in src/." }
        }
        if (step(r) === 0) return { toolCalls: [spawn("CHILD loud"), spawn("CHILD quiet")] }
        return { text: last.includes("[subagent announcement]") ? "heard" : "started" }
      }
    })
    try {
      const home = makeHome()
      const env = { DSH_HOME: home, DSH_RESIDENT: "0", OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: "sk-test" }
      const r = await runDsh(["run", "-p", "--model", "openai:any", "--output-format", "json", "PARENT"], { cwd: tempDir(), env })
      expect(r.code, r.stderr).toBe(0)
      const { sessionId } = JSON.parse(r.stdout) as { sessionId: string }
      // The announce step is one more turn in each child's own session (its transcript).
      for (const handle of ["explore-1", "explore-2"]) {
        expect(readFileSync(join(home, "sessions", sessionId, "agents", handle, "wire.jsonl"), "utf8")).toContain("[announce step]")
      }
      const main = fake.requests.filter((q) => !(users(q)[0] ?? "").startsWith("CHILD"))
      const announcements = main.flatMap((q) => body(q).messages).map((m) => m.content ?? "").filter((t) => t.includes("[subagent announcement]"))
      // Only the loud child's reached the parent, once, with the announce step's reply as its result.
      expect(new Set(announcements).size).toBe(1)
      const text = announcements[0]!
      expect(text).toContain("Handle: explore-1 (explore)")
      expect(text).toMatch(/\(run [0-9A-Za-z-]+\)/)
      expect(text).toContain("Status: completed")
      expect(text).toContain("Result:\nFound 3 TODOs in src/.")
      expect(text).toMatch(/Runtime: [\d.]+s · Tokens: \d+/)
      expect(text).toContain(`Session: ${sessionId}:subagent:explore-1 (session id ${sessionId})`)
      expect(text).toContain(`Transcript: ${join(home, "sessions", sessionId, "agents", "explore-1", "wire.jsonl")}`)
      // The skipped one is still recorded and listed.
      const list = await runDsh(["subagents", "list", "--session", sessionId, "--json"], { env })
      const subagents = (JSON.parse(list.stdout) as { subagents: ReadonlyArray<{ name: string; status: string }> }).subagents
      expect(subagents.map((s) => [s.name, s.status]).sort()).toEqual([["explore-1", "completed"], ["explore-2", "completed"]])
      const tasksDir = join(home, "sessions", sessionId, "tasks")
      const tasks = readdirSync(tasksDir).map((f) => JSON.parse(readFileSync(join(tasksDir, f), "utf8")) as { handle: string; delivered: boolean; result?: { announcement?: string } })
      expect(tasks.find((t) => t.handle === "explore-2")).toMatchObject({ delivered: true, result: { announcement: "ANNOUNCE_SKIP" } })
    } finally {
      await fake.close()
    }
  })
})
