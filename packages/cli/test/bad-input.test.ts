import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { makeHome, runDsh, sessionIds, tempDir } from "./support.ts"

const cases: ReadonlyArray<{ readonly name: string; readonly args: ReadonlyArray<string>; readonly env?: Record<string, string>; readonly says: RegExp }> = [
  { name: "an unknown model spec", args: ["run", "--model", "nosuch:model", "hi"], says: /unknown model adapter "nosuch".*available: anthropic, openai, scripted/ },
  { name: "a missing API key", args: ["run", "--model", "openai:gpt-4.1", "hi"], says: /OPENAI_API_KEY is not set/ },
  { name: "an unreadable agent file", args: ["run", "--agent-file", "/nonexistent/agent.md", "hi"], says: /agent\.md/ },
  { name: "an unknown session id", args: ["run", "--session", "20260101T000000-deadbeef", "hi"], says: /unknown session "20260101T000000-deadbeef"/ },
  { name: "an unknown flag", args: ["run", "--bogus", "hi"], says: /bogus/ },
  { name: "a bad output format", args: ["run", "--output-format", "xml", "hi"], says: /--output-format must be one of text, json, stream-json/ },
  { name: "a missing prompt", args: ["run"], says: /a prompt is required/ },
  { name: "both --agent and --agent-file", args: ["run", "--agent", "coder", "--agent-file", "x.md", "hi"], says: /either --agent or --agent-file/ },
  { name: "an unknown agent", args: ["run", "--agent", "nobody", "hi"], says: /unknown agent "nobody".*coder/ },
  { name: "a cwd that does not exist", args: ["run", "--cwd", "/nonexistent/dir", "hi"], says: /no such directory/ },
  { name: "an unknown command", args: ["frobnicate"], says: /unknown command "frobnicate"/ },
  { name: "a malformed scripted model file", args: ["run", "--model", "scripted:broken.json", "hi"], says: /not valid JSON/ },
  { name: "a --store that is neither a directory nor a postgres:// URL", args: ["sessions", "list", "--store", "mysql://u:pw@db/x"], says: /^dsh: --store must be a directory or a postgres:\/\/ URL \(got a mysql:\/\/ URL\)$/ },
  { name: "a --store URL that does not parse", args: ["run", "--store", "postgres://u:pw@db:99999/x", "hi"], says: /^dsh: --store "postgres:\/\/u@db:99999\/x" is not a valid URL$/ },
  { name: "a --store without a value", args: ["subagents", "list", "--store"], says: /--store needs a value/ },
  { name: "a bad DSH_STORE", args: ["sessions", "list"], env: { DSH_STORE: "http://example.com" }, says: /^dsh: DSH_STORE must be a directory or a postgres:\/\/ URL \(got a http:\/\/ URL\)$/ },
  { name: "--store on a command that keeps no sessions", args: ["agents", "list", "--store", "/tmp"], says: /store/ }
]

describe("bad input: one clear line on stderr, exit code 2, nothing written", () => {
  it("a store = in config.toml that is neither a directory nor a postgres:// URL names the key", async () => {
    const home = makeHome("store = \"redis://cache:6379\"\n")
    const r = await runDsh(["sessions", "list"], { env: { DSH_HOME: home } })
    expect(r.code).toBe(2)
    expect(r.stderr).toBe(`dsh: ${join(home, "config.toml")}: store must be a directory or a postgres:// URL (got a redis:// URL)\n`)
  })

  for (const c of cases) {
    it(c.name, async () => {
      const home = makeHome()
      const cwd = tempDir()
      writeFileSync(join(cwd, "broken.json"), "{ not json")
      const r = await runDsh(c.args, { cwd, env: { DSH_HOME: home, ...c.env } })
      expect(r.code).toBe(2)
      expect(r.stdout).toBe("")
      const lines = r.stderr.trimEnd().split("\n")
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(/^dsh: /)
      expect(lines[0]).toMatch(c.says)
      expect(sessionIds(home)).toEqual([])
    })
  }
})
