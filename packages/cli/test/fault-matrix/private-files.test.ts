import { chmodSync, lstatSync, readdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { runDsh, tempDir } from "../support.ts"
import { project, runDshUnder } from "./support.ts"

/**
 * Fault matrix, privacy: sessions hold prompts, tool output and any secret a tool printed, so
 * whatever the umask, `$DSH_HOME`, every directory in it is 0700 and every file 0600. Real `dsh`
 * processes on the scripted model and the file store.
 */

/** Every entry under `root` (itself included) with its permission bits. */
const modesUnder = (root: string): Array<{ path: string; dir: boolean; mode: string }> => {
  const out: Array<{ path: string; dir: boolean; mode: string }> = []
  const visit = (path: string) => {
    const s = lstatSync(path)
    out.push({ path, dir: s.isDirectory(), mode: (s.mode & 0o777).toString(8).padStart(3, "0") })
    if (s.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name))
  }
  visit(root)
  return out
}

describe("session files are private whatever the umask", { timeout: 120_000 }, () => {
  for (const umask of ["022", "000"]) {
    it(`umask ${umask}: a run with an archived and a background child, its log and its report are owner-only`, async () => {
      // DSH_HOME does not exist yet: dsh makes it.
      const home = join(tempDir("dsh-private-"), "home")
      const cwd = project()
      const env = { DSH_HOME: home }
      const r = await runDshUnder(umask, ["run", "--allow", "subagent", "--model", "scripted:script.json", "--output-format", "json", "go"], { env, cwd })
      expect(r.code, r.stderr).toBe(0)
      const { sessionId } = JSON.parse(r.stdout) as { sessionId: string }
      const report = join(tempDir("dsh-report-"), "report.html")
      const reported = await runDshUnder(umask, ["sessions", "report", sessionId, "--html", report], { env, cwd })
      expect(reported.code, reported.stderr).toBe(0)

      const dir = join(home, "sessions", sessionId)
      const entries = modesUnder(home)
      const relative = entries.map((e) => e.path.slice(dir.length + 1))
      // What the run is meant to have written, so the check below covers each kind of file.
      for (const expected of ["wire.jsonl", "state.json", "dsh.log", "tasks", "archive"]) expect(relative).toContain(expected)
      expect(relative.some((p) => /^agents\/[^/]+\/meta\.json$/.test(p))).toBe(true)
      expect(relative.some((p) => /^tasks\/[^/]+\.json$/.test(p))).toBe(true)
      expect(relative.some((p) => /^archive\/.+\.gz$/.test(p))).toBe(true)
      const wrong = entries.filter((e) => e.mode !== (e.dir ? "700" : "600"))
      expect(wrong).toEqual([])
      expect((lstatSync(report).mode & 0o777).toString(8)).toBe("600")
    })
  }
})

describe("out-of-process children's homes are private too", { timeout: 120_000 }, () => {
  it("umask 022: an sdk:dsh and an acp:dsh child (their own DSH_HOME, config.toml, sessions, logs)", async () => {
    const home = join(tempDir("dsh-private-"), "home")
    const cwd = tempDir("dsh-cwd-")
    writeFileSync(join(cwd, "script.json"), JSON.stringify({
      rules: [
        { when: { lastUser: "^CHILD" }, reply: { text: "child says hi" } },
        {
          when: { lastUser: "^go$", step: 0 },
          reply: {
            toolCalls: [
              { name: "subagent", arguments: { description: "over sdk", agent: "sdk:dsh", prompt: "CHILD over sdk" } },
              { name: "subagent", arguments: { description: "over acp", agent: "acp:dsh", prompt: "CHILD over acp" } }
            ]
          }
        },
        { reply: { text: "done" } }
      ]
    }))
    const r = await runDshUnder("022", ["run", "--allow", "subagent", "--model", `scripted:${join(cwd, "script.json")}`, "--output-format", "json", "go"], { env: { DSH_HOME: home }, cwd })
    expect(r.code, r.stderr).toBe(0)
    const { subagents } = JSON.parse(r.stdout) as { subagents: Array<{ status: string }> }
    expect(subagents.map((c) => c.status)).toEqual(["completed", "completed"])
    const entries = modesUnder(home)
    // The children's own homes hold their sessions: the check covers them.
    expect(entries.filter((e) => e.path.endsWith("config.toml")).length).toBe(2)
    expect(entries.filter((e) => e.mode !== (e.dir ? "700" : "600"))).toEqual([])
  })
})

describe("dsh doctor and a home other users can open", { timeout: 60_000 }, () => {
  it("warns once with the chmod that fixes it, and not once it is fixed", async () => {
    const home = join(tempDir("dsh-private-"), "home")
    const cwd = project()
    const env = { DSH_HOME: home }
    expect((await runDshUnder("022", ["run", "--allow", "subagent", "--model", "scripted:script.json", "go"], { env, cwd })).code).toBe(0)
    const clean = await runDsh(["doctor"], { env })
    expect(clean.code).toBe(0)
    expect(clean.stdout).not.toContain("go-rwx")
    // What session files hold is said whether or not they are exposed.
    expect(clean.stdout).toContain(`sessions    ${join(home, "sessions")} holds prompts, model output and tool results (which may include secrets a tool printed); owner-only`)

    // As a home made by an older dsh under umask 022 would be.
    chmodSync(home, 0o755)
    const warned = await runDsh(["doctor"], { env })
    expect(warned.code).toBe(0)
    const lines = warned.stdout.split("\n").filter((l) => l.includes("other users"))
    expect(lines).toEqual([`warning     ${home} is open to other users (mode 755); sessions hold prompts and tool output: chmod -R go-rwx ${home}`])
    const json = JSON.parse((await runDsh(["doctor", "--json"], { env })).stdout) as { dshHome: { exposed?: { path: string; mode: string } } }
    expect(json.dshHome.exposed).toEqual({ path: home, mode: "755" })

    // A single session file is found too.
    chmodSync(home, 0o700)
    const id = readdirSync(join(home, "sessions"))[0]!
    chmodSync(join(home, "sessions", id, "wire.jsonl"), 0o644)
    const file = await runDsh(["doctor"], { env })
    expect(file.stdout.split("\n").filter((l) => l.includes("other users"))).toEqual([
      `warning     ${join(home, "sessions", id, "wire.jsonl")} is open to other users (mode 644); sessions hold prompts and tool output: chmod -R go-rwx ${home}`
    ])
    chmodSync(join(home, "sessions", id, "wire.jsonl"), 0o600)
    expect((await runDsh(["doctor"], { env })).stdout).not.toContain("other users")
  })
})
