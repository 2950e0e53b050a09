import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { DSH, makeHome, runDsh, tempDir } from "./support.ts"

/**
 * Archive and cleanup from the command line, on the scripted model and the file store:
 * `cleanup: "delete"`, the `#N` names of `subagents list`, `dsh sessions prune` and
 * `dsh sessions report`. Old sessions are made old by editing their state, as time would.
 */
const launched: Array<ChildProcess> = []
afterEach(() => {
  for (const p of launched.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL")
})

/** The lead delegates twice (the first with cleanup: delete); each explorer answers what it was told. */
const script = {
  rules: [
    { when: { system: "codebase exploration subagent" }, reply: { text: "you told me: {{lastUser}}" } },
    { when: { lastUser: "^HANG" }, reply: { hang: true } },
    {
      when: { lastUser: "^go$", step: 0 },
      reply: {
        toolCalls: [
          { name: "subagent", arguments: { agent: "explore", description: "tidy one", prompt: "first task", cleanup: "delete" } },
          { name: "subagent", arguments: { agent: "explore", description: "kept one", prompt: "second task" } }
        ]
      }
    },
    { reply: { text: "done" } }
  ]
}

const project = () => {
  const cwd = tempDir("dsh-cwd-")
  writeFileSync(join(cwd, "script.json"), JSON.stringify(script))
  return cwd
}

const run = async (home: string, cwd: string, prompt = "go", config?: string) => {
  if (config !== undefined) writeFileSync(join(home, "config.toml"), config)
  const r = await runDsh(["run", "--model", "scripted:script.json", "--output-format", "json", prompt], { env: { DSH_HOME: home }, cwd })
  expect(r.code, r.stderr).toBe(0)
  return JSON.parse(r.stdout) as { sessionId: string }
}

const state = (home: string, id: string) => JSON.parse(readFileSync(join(home, "sessions", id, "state.json"), "utf8")) as {
  updatedAt: string
  subagents: Record<string, { handle: string; cleanup?: string; archivedAt?: string; endedAt?: string }>
}
const editState = (home: string, id: string, f: (s: Record<string, unknown>) => Record<string, unknown>) =>
  writeFileSync(join(home, "sessions", id, "state.json"), JSON.stringify(f(state(home, id) as unknown as Record<string, unknown>), null, 2))
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString()
const dsh = (home: string, ...args: Array<string>) => runDsh(args, { env: { DSH_HOME: home } })

describe("cleanup: delete", () => {
  it("archives a child once its result is back; it stays listable, readable by '#N' and continuable", async () => {
    const home = makeHome()
    const cwd = project()
    const { sessionId: id } = await run(home, cwd)
    const children = Object.values(state(home, id).subagents)
    const tidy = children.find((c) => c.cleanup === "delete")!
    const kept = children.find((c) => c.cleanup === undefined)!
    const dir = join(home, "sessions", id)
    expect(existsSync(join(dir, "agents", tidy.handle, "wire.jsonl")), "the deleted child's transcript left the live tree").toBe(false)
    expect(existsSync(join(dir, "archive", `${tidy.handle}.wire.jsonl.gz`)), "it is in the session's archive").toBe(true)
    expect(tidy.archivedAt).toBeDefined()
    expect(existsSync(join(dir, "agents", kept.handle, "wire.jsonl")), "keep leaves the transcript where it is").toBe(true)

    const listed = JSON.parse((await dsh(home, "subagents", "list", "--session", id, "--json")).stdout) as { subagents: Array<{ name: string; status: string; archived?: boolean }> }
    const at = listed.subagents.findIndex((s) => s.name === tidy.handle) + 1
    expect(listed.subagents[at - 1]).toMatchObject({ status: "completed", archived: true })
    const log = await dsh(home, "subagents", "log", `#${at}`, "--session", id)
    expect(log.code).toBe(0)
    expect(log.stdout).toContain("assistant: you told me: first task")

    // The session's model is a script relative to its directory: send from there.
    const sent = await runDsh(["subagents", "send", `#${at}`, "one more thing", "--session", id], { env: { DSH_HOME: home }, cwd })
    expect(sent.code, sent.stderr).toBe(0)
    expect(sent.stdout.trim()).toBe("you told me: one more thing")
    // Continued from the archive, then archived again (its cleanup still says delete).
    const after = await dsh(home, "subagents", "log", tidy.handle, "--session", id)
    expect(after.stdout.match(/^assistant: /gm)).toHaveLength(2)
    expect(existsSync(join(dir, "archive", `${tidy.handle}.wire.jsonl.gz`))).toBe(true)
  }, 60_000)
})

describe("#N names a child wherever a handle is taken", () => {
  it("info, log, stop and send accept '#N'; an index that does not exist is exit 2", async () => {
    const home = makeHome()
    const { sessionId: id } = await run(home, project())
    const listed = await dsh(home, "subagents", "list", "--session", id)
    const first = /^#1\s+(\S+)/m.exec(listed.stdout)?.[1]
    expect(first).toMatch(/^explore-\d$/)
    const info = await dsh(home, "subagents", "info", "#1", "--session", id, "--json")
    expect(JSON.parse(info.stdout)).toMatchObject({ handle: first })
    const stop = await dsh(home, "subagents", "stop", "#1", "--session", id)
    expect(stop.stdout.trim()).toBe(`nothing to stop: ${first} is running`)
    const bad = await dsh(home, "subagents", "info", "#9", "--session", id)
    expect(bad.code).toBe(2)
    expect(bad.stderr.trim()).toBe(`dsh: no subagent #9: #1 to #2 exist in session ${id}`)
  }, 60_000)
})

describe("dsh sessions prune", () => {
  it("deletes old sessions, archives due children of the others, never touches a running session; --dry-run changes nothing", async () => {
    const home = makeHome()
    const cwd = project()
    const config = "[subagents]\narchive_after_minutes = 30\n"
    const old = (await run(home, cwd, "go", config)).sessionId
    const recent = (await run(home, cwd, "go")).sessionId
    editState(home, old, (s) => ({ ...s, createdAt: daysAgo(41), updatedAt: daysAgo(40) }))
    // In the recent session, one child ended two hours ago: due after 30 minutes.
    const due = Object.values(state(home, recent).subagents).find((c) => c.cleanup === undefined)!
    editState(home, recent, (s) => ({ ...s, subagents: { ...(s.subagents as object), [due.handle]: { ...due, endedAt: new Date(Date.now() - 7_200_000).toISOString() } } }))
    // A session a live process runs, made to look old as well.
    const busyRun = spawn(DSH, ["run", "--model", "scripted:script.json", "HANG"], { cwd, env: { PATH: process.env.PATH ?? "", DSH_HOME: home }, stdio: "ignore" })
    launched.push(busyRun)
    let busy: string | undefined
    while (busy === undefined) {
      busy = readdirSync(join(home, "sessions")).find((id) => id !== old && id !== recent && existsSync(join(home, "sessions", id, "owner.lock")))
      if (busy === undefined) await new Promise((r) => setTimeout(r, 25))
    }

    const dry = await dsh(home, "sessions", "prune", "--older-than", "30d", "--dry-run", "--json")
    expect(dry.code, dry.stderr).toBe(0)
    const plan = JSON.parse(dry.stdout) as { dryRun: boolean; sessions: Array<{ id: string; bytes: number }>; children: Array<{ session: string; name: string; bytes: number; archivedBytes: number }>; skipped: Array<{ id: string; reason: string }>; freedBytes: number }
    expect(plan.dryRun).toBe(true)
    expect(plan.sessions.map((s) => s.id)).toEqual([old])
    expect(plan.children.map((c) => [c.session, c.name])).toEqual([[recent, due.handle]])
    expect(plan.skipped.map((s) => s.id)).toEqual([busy])
    expect(plan.skipped[0]?.reason).toMatch(/^running \(pid \d+/)
    expect(plan.freedBytes).toBeGreaterThan(plan.sessions[0]!.bytes)
    expect(existsSync(join(home, "sessions", old)), "a dry run deletes nothing").toBe(true)
    expect(existsSync(join(home, "sessions", recent, "agents", due.handle, "wire.jsonl")), "and archives nothing").toBe(true)

    const real = await dsh(home, "sessions", "prune", "--older-than", "30d")
    expect(real.code, real.stderr).toBe(0)
    expect(real.stdout).toContain(`deleted session ${old}`)
    expect(real.stdout).toContain(`archived ${recent} ${due.handle}`)
    expect(real.stdout).toContain(`skipped session ${busy}: running`)
    expect(real.stdout).toMatch(/^1 session \(.+\), 1 child archived \(.+ → .+\): freed .+; 1 skipped$/m)
    expect(existsSync(join(home, "sessions", old))).toBe(false)
    expect(existsSync(join(home, "sessions", recent, "archive", `${due.handle}.wire.jsonl.gz`))).toBe(true)
    expect(state(home, recent).subagents[due.handle]?.archivedAt).toBeDefined()
    expect(existsSync(join(home, "sessions", busy, "owner.lock"))).toBe(true)
    const sessions = JSON.parse((await dsh(home, "sessions", "list", "--json")).stdout) as { sessions: Array<{ id: string }> }
    expect(sessions.sessions.map((s) => s.id).sort()).toEqual([recent, busy].sort())
    // Archived children still read back.
    expect((await dsh(home, "subagents", "log", due.handle, "--session", recent)).stdout).toContain("you told me: second task")
  }, 60_000)

  it("refuses an age it cannot read, and a malformed archive_after_minutes, with exit 2", async () => {
    const home = makeHome()
    for (const age of ["30", "0d", "-5d", "5y", "1.5h", ""]) {
      const r = await dsh(home, "sessions", "prune", "--older-than", age)
      expect(r.code, age).toBe(2)
      expect(r.stderr.trim().split("\n"), age).toHaveLength(1)
    }
    expect((await dsh(home, "sessions", "prune")).stderr).toMatch(/usage: dsh sessions prune --older-than AGE/)
    writeFileSync(join(home, "config.toml"), "[subagents]\narchive_after_minutes = -1\n")
    const bad = await dsh(home, "sessions", "prune", "--older-than", "1d")
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/\[subagents\] archive_after_minutes = -1 is not allowed: it must be an integer from 0 to 525600/)
  }, 60_000)
})

describe("dsh sessions report", () => {
  it("writes one HTML file of the session's tree; a bad id or a missing --html is exit 2", async () => {
    const home = makeHome()
    const cwd = project()
    const { sessionId: id } = await run(home, cwd)
    const file = join(cwd, "report.html")
    const r = await runDsh(["sessions", "report", id, "--html", "report.html"], { env: { DSH_HOME: home }, cwd })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.trim()).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}: 2 subagents, [\\d,]+ tokens$`))
    const html = readFileSync(file, "utf8")
    for (const h of Object.keys(state(home, id).subagents)) expect(html).toContain(`data-handle="${h}" data-status="completed"`)
    expect(html).not.toMatch(/https?:\/\//)
    expect((await dsh(home, "sessions", "report", "20260101T000000-deadbeef", "--html", file)).code).toBe(2)
    expect((await dsh(home, "sessions", "report", id)).stderr.trim()).toBe("dsh: usage: dsh sessions report ID --html FILE")
    const nowhere = await dsh(home, "sessions", "report", id, "--html", "/nonexistent/dir/r.html")
    expect(nowhere.code).toBe(2)
    expect(nowhere.stderr).toContain("cannot write it")
  }, 60_000)
})
