import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { describe, expect, it } from "vitest"
import { makeHome, runDsh, tempDir } from "../support.ts"

// Seed: openclaw-sub-agents, "斜杠命令": `/subagents info` shows the run's metadata — status,
// timestamps, session id, transcript path and the cleanup setting — and "自动归档" says when
// its transcript is archived.
interface Body {
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: string | null }>
}
const body = (r: FakeOpenAIServer.FakeRequest) => r.body as Body
const firstUser = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.find((m) => m.role === "user")?.content ?? ""
const step = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.filter((m) => m.role === "assistant").length

interface Info {
  readonly sessionId: string
  readonly cleanup: string
  readonly endedAt: string
  readonly archiveAt?: string
  readonly archivedAt?: string
}

/** One explore child (with `cleanup` when given), then `dsh subagents info explore-1 --json`. */
const infoAfterRun = async (config: string | undefined, cleanup?: string) => {
  const fake = await FakeOpenAIServer.startFakeOpenAIServer({
    respond: (r) =>
      firstUser(r).startsWith("CHILD")
        ? { text: "found" }
        : step(r) === 0
        ? { toolCalls: [{ name: "subagent", arguments: { description: "look", agent: "explore", prompt: "CHILD look", ...(cleanup === undefined ? {} : { cleanup }) } }] }
        : { text: "main done" }
  })
  try {
    const env = { DSH_HOME: makeHome(config), DSH_RESIDENT: "0", OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: "sk-test" }
    const r = await runDsh(["run", "-p", "--model", "openai:any", "--output-format", "json", "PARENT"], { cwd: tempDir(), env })
    expect(r.code, r.stderr).toBe(0)
    const { sessionId } = JSON.parse(r.stdout) as { sessionId: string }
    const json = await runDsh(["subagents", "info", "explore-1", "--session", sessionId, "--json"], { env })
    const text = await runDsh(["subagents", "info", "explore-1", "--session", sessionId], { env })
    return { sessionId, info: JSON.parse(json.stdout) as Info, text: text.stdout }
  } finally {
    await fake.close()
  }
}

describe("seed: dsh subagents info", () => {
  it("shows the session id, the default cleanup (keep) and when the transcript will be archived", async () => {
    const { sessionId, info, text } = await infoAfterRun(undefined)
    expect(info.sessionId).toBe(sessionId)
    expect(info.cleanup).toBe("keep")
    // The default archive_after_minutes is 60.
    expect(info.archiveAt).toBe(new Date(Date.parse(info.endedAt) + 60 * 60_000).toISOString())
    expect(text).toContain(`sessionId: ${sessionId}\n`)
    expect(text).toContain("cleanup: keep\n")
    expect(text).toMatch(/^archiveAt: \d{4}-/m)
  })

  it("follows [subagents] archive_after_minutes, and says never for 0", async () => {
    const five = await infoAfterRun("[subagents]\narchive_after_minutes = 5\n")
    expect(five.info.archiveAt).toBe(new Date(Date.parse(five.info.endedAt) + 5 * 60_000).toISOString())
    const never = await infoAfterRun("[subagents]\narchive_after_minutes = 0\n")
    expect(never.info.archiveAt).toBe("never")
  })

  it("cleanup delete is shown with the time it was archived", async () => {
    const { info } = await infoAfterRun(undefined, "delete")
    expect(info.cleanup).toBe("delete")
    expect(info.archivedAt ?? info.archiveAt).toMatch(/^\d{4}-/)
  })
})
