import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { makeHome, runDsh, tempDir } from "../support.ts"

/**
 * Fault matrix 5(a): an agent's `disallowedTools` bind its whole subtree. Real `dsh run`
 * processes on a scripted model whose prompts name what to do; every run is `--yolo`, so the
 * only thing that can stop a command is the lead's `disallowedTools` (the control run shows
 * the command does run without them).
 */
const script = (): string => {
  const file = join(tempDir("dsh-disallow-script-"), "script.json")
  writeFileSync(file, JSON.stringify({
    rules: [
      { when: { lastUser: "^(?:CHILD )?delegate (\\S+) (.+)$", step: 0 }, reply: { toolCalls: [{ name: "subagent", arguments: { agent: "{{1}}", description: "child", prompt: "CHILD {{2}}" } }] } },
      { when: { lastUser: "^(?:CHILD )?bash (.+)$", step: 0 }, reply: { toolCalls: [{ name: "Bash", arguments: { command: "{{1}}" } }] } },
      { when: { lastUser: "^(?:CHILD )?write (\\S+)$", step: 0 }, reply: { toolCalls: [{ name: "Write", arguments: { path: "{{1}}", content: "written\n" } }] } },
      { reply: { text: "result: {{lastTool}}" } }
    ]
  }))
  return file
}

const SCRIPT = script()

const LEAD = "---\nname: lead\ndescription: plans, never runs commands\ndisallowedTools: [Bash, Write, Edit]\n---\nYou lead.\n"
const READ_ONLY = "---\nname: reader\ndescription: reads and delegates\ntools: [Read, subagent]\n---\nYou read.\n"

/** `dsh run --yolo` in a fresh home (max_depth 2) and working directory; `agent` is an agent file's text. */
const run = async (prompt: string, agent?: string) => {
  const home = makeHome("[limits]\nmax_depth = 2\n")
  const cwd = tempDir("dsh-disallow-cwd-")
  const file = join(cwd, "lead.md")
  if (agent !== undefined) writeFileSync(file, agent)
  const r = await runDsh(
    ["run", "-p", "--yolo", "--model", `scripted:${SCRIPT}`, "--output-format", "json", ...(agent === undefined ? [] : ["--agent-file", file]), prompt],
    { cwd, env: { DSH_HOME: home, DSH_RESIDENT: "0" } }
  )
  const json = JSON.parse(r.stdout || "{}") as { sessionId: string; result: string; subagents: Array<{ name: string; provider: string }> }
  return { ...r, json, home, cwd }
}

const wire = (home: string, sessionId: string, child: string): Array<Record<string, unknown>> =>
  readFileSync(join(home, "sessions", sessionId, "agents", child, "wire.jsonl"), "utf8")
    .split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Record<string, unknown>)

const toolResults = (records: ReadonlyArray<Record<string, unknown>>) =>
  records.flatMap((r) => {
    const m = r.message as { role?: string; content?: string; isError?: boolean } | undefined
    return r.type === "message" && m?.role === "tool" ? [m] : []
  })

describe("5(a): an agent's disallowedTools bind its whole subtree", () => {
  it("control: without the lead, coder's Bash runs (the script and --yolo do not deny)", async () => {
    const r = await run("delegate coder bash touch made-by-coder")
    expect(r.code, r.stderr).toBe(0)
    expect(existsSync(join(r.cwd, "made-by-coder"))).toBe(true)
  }, 60_000)

  it("coder under a lead with disallowedTools [Bash, Write, Edit] is denied Bash; the denial is its tool result and nothing ran", async () => {
    const r = await run("delegate coder bash touch made-by-coder", LEAD)
    expect(r.code, r.stderr).toBe(0)
    expect(existsSync(join(r.cwd, "made-by-coder"))).toBe(false)
    const [result] = toolResults(wire(r.home, r.json.sessionId, "coder-1"))
    expect(result).toMatchObject({ isError: true })
    expect(result!.content).toContain("Bash is denied: an agent above this one lists Bash in disallowedTools")
    // Its parent reads the child's answer, which says so.
    expect(r.json.result).toContain("disallowedTools")
    // The model was not even offered Bash, Write or Edit (the tool request is not recorded; the
    // toolbox refused before any permission decision).
    expect(wire(r.home, r.json.sessionId, "coder-1").filter((x) => x.type === "permission")).toEqual([])
  }, 60_000)

  for (const backend of ["sdk:dsh", "acp:dsh"]) {
    it(`a grandchild through coder on ${backend} (max_depth 2) is denied Bash as well`, async () => {
      const r = await run(`delegate coder delegate ${backend} bash touch made-by-grandchild`, LEAD)
      expect(r.code, r.stderr).toBe(0)
      expect(existsSync(join(r.cwd, "made-by-grandchild"))).toBe(false)
      // The child process was not offered Bash either (its toolbox answers, not a rule).
      expect(r.json.result).toContain("permission denied: Bash is denied: an agent above this one lists Bash in disallowedTools")
    }, 90_000)

    it(`a direct ${backend} child of the lead is denied Write`, async () => {
      const r = await run(`delegate ${backend} write made-by-child.txt`, LEAD)
      expect(r.code, r.stderr).toBe(0)
      expect(existsSync(join(r.cwd, "made-by-child.txt"))).toBe(false)
      expect(r.json.result).toContain("permission denied: Write is denied: an agent above this one lists Write in disallowedTools")
    }, 90_000)
  }

  it("a read-only lead (tools: [Read, subagent]) may still have coder write: tools stays its own", async () => {
    const r = await run("delegate coder write written-by-coder.txt", READ_ONLY)
    expect(r.code, r.stderr).toBe(0)
    expect(readFileSync(join(r.cwd, "written-by-coder.txt"), "utf8")).toBe("written\n")
  }, 60_000)

  it("dsh agents list says whom disallowedTools bind, in text and in --json", async () => {
    const cwd = tempDir("dsh-disallow-list-")
    writeFileSync(join(cwd, "lead.md"), LEAD)
    const env = { DSH_HOME: makeHome(), DSH_RESIDENT: "0" }
    const json = await runDsh(["agents", "list", "--json", "--agent-file", "lead.md"], { cwd, env })
    expect(json.code, json.stderr).toBe(0)
    const lead = (JSON.parse(json.stdout) as { agents: Array<Record<string, unknown>> }).agents.find((a) => a.name === "lead")
    expect(lead).toMatchObject({ disallowedTools: ["Bash", "Write", "Edit"], disallowedToolsBind: "subtree" })
    const text = await runDsh(["agents", "list", "--agent-file", "lead.md"], { cwd, env })
    expect(text.stdout).toContain("disallowedTools: Bash, Write, Edit (for it and every agent it delegates to)")
  }, 60_000)
})
