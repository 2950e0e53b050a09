import { existsSync, lstatSync, readFileSync, rmSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { makeHome, runDsh } from "../support.ts"
import { project } from "./support.ts"

/**
 * Fault matrix, a session whose `state.json` is gone while its transcript, tasks and children
 * are on disk: it is listed as `unreadable` with the reason, readers say how to recover, and
 * `dsh run --session ID` rebuilds the state from what is left (one notice on stderr) and goes on.
 */

interface Listed {
  readonly id: string
  readonly agent: string
  readonly createdAt: string
  readonly updatedAt: string
  readonly status: string
  readonly reason?: string
}

const listSessions = async (home: string) =>
  (JSON.parse((await runDsh(["sessions", "list", "--json"], { env: { DSH_HOME: home } })).stdout) as { sessions: Array<Listed> }).sessions

/** A finished session with an archived and a background child, then its state.json removed. */
const sessionWithoutState = async () => {
  const home = makeHome()
  const cwd = project()
  const r = await runDsh(["run", "--model", "scripted:script.json", "--output-format", "json", "go"], { env: { DSH_HOME: home }, cwd })
  expect(r.code, r.stderr).toBe(0)
  const { sessionId } = JSON.parse(r.stdout) as { sessionId: string }
  const dir = join(home, "sessions", sessionId)
  const before = JSON.parse(readFileSync(join(dir, "state.json"), "utf8")) as { subagents: Record<string, { handle: string; agent: string; status: string; description: string; runId: string; background?: boolean }> }
  rmSync(join(dir, "state.json"))
  return { home, cwd, id: sessionId, dir, before }
}

describe("a session whose state.json is missing", { timeout: 120_000 }, () => {
  it("is listed as unreadable with the reason, and readers say how to recover", async () => {
    const { home, cwd, id, dir } = await sessionWithoutState()
    const listed = (await listSessions(home)).find((s) => s.id === id)
    expect(listed).toMatchObject({ id, agent: "", createdAt: "", updatedAt: "", status: "unreadable" })
    expect(listed?.reason).toContain(join(dir, "state.json"))
    expect(listed?.reason).toContain("missing")
    const text = await runDsh(["sessions", "list"], { env: { DSH_HOME: home } })
    expect(text.stdout).toMatch(new RegExp(`^${id}  unreadable .*state\\.json is missing`, "m"))

    const read = await runDsh(["subagents", "list", "--session", id], { env: { DSH_HOME: home } })
    expect(read.code).toBe(1)
    expect(read.stderr.trim().split("\n")).toHaveLength(1)
    expect(read.stderr).toContain("state.json is missing")
    expect(read.stderr).toContain(`dsh run --session ${id}`)
    const report = await runDsh(["sessions", "report", id, "--html", join(dir, "..", "report.html")], { env: { DSH_HOME: home } })
    expect(report.code).toBe(1)
    expect(report.stderr).toContain(`dsh run --session ${id}`)
    // A reader rebuilds nothing.
    expect(existsSync(join(dir, "state.json"))).toBe(false)

    // --continue cannot pick another session silently.
    const cont = await runDsh(["run", "--model", "scripted:script.json", "--continue", "again"], { env: { DSH_HOME: home }, cwd })
    expect(cont.code).toBe(1)
    expect(cont.stderr).toContain("--session ID")
  })

  it("dsh run --session ID rebuilds the state from the transcripts, children and tasks, says so once, and continues", async () => {
    const { home, cwd, id, dir, before } = await sessionWithoutState()
    const r = await runDsh(["run", "--model", "scripted:script.json", "--session", id, "--output-format", "json", "again"], { env: { DSH_HOME: home }, cwd })
    expect(r.code, r.stderr).toBe(0)
    const warnings = r.stderr.trim().split("\n").filter((l) => l.includes("rebuilt"))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/^dsh: warning: .*state\.json is missing .*rebuilt it from the transcript and 2 children: agent "agent" and model "scripted:script\.json" assumed/)
    expect(JSON.parse(r.stdout)).toMatchObject({ sessionId: id, status: "completed", result: "done" })

    expect((lstatSync(join(dir, "state.json")).mode & 0o777).toString(8)).toBe("600")
    const listed = (await listSessions(home)).find((s) => s.id === id)
    expect(listed).toMatchObject({ id, agent: "agent", status: "completed" })
    expect(listed?.reason).toBeUndefined()

    // The children come back as they were recorded: handle, agent, status, description, run, background.
    const after = JSON.parse(readFileSync(join(dir, "state.json"), "utf8")) as typeof before
    const pick = (s: typeof before) =>
      Object.values(s.subagents).map((d) => ({ handle: d.handle, agent: d.agent, status: d.status, description: d.description, runId: d.runId, background: d.background ?? false })).sort((a, b) => a.handle.localeCompare(b.handle))
    expect(pick(after)).toEqual(pick(before))
    const children = JSON.parse((await runDsh(["subagents", "list", "--session", id, "--json"], { env: { DSH_HOME: home } })).stdout) as { subagents: Array<{ name: string; status: string }> }
    expect(children.subagents.map((c) => c.status)).toEqual(["completed", "completed"])

    // The archived child's transcript is still readable through the rebuilt state.
    const archived = Object.values(after.subagents).find((d) => d.description === "tidy one")!
    const log = await runDsh(["subagents", "log", archived.handle, "--session", id], { env: { DSH_HOME: home } })
    expect(log.code, log.stderr).toBe(0)
    expect(log.stdout).toContain("first task")

    // Only the first run needed the rebuild.
    const again = await runDsh(["run", "--model", "scripted:script.json", "--session", id, "third"], { env: { DSH_HOME: home }, cwd })
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).not.toContain("rebuilt")
  })
})
