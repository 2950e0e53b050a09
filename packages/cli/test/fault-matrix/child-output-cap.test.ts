import { readdirSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { makeHome, runDsh, sessionIds, tempDir } from "../support.ts"
import { agentToml, delegateScriptFile, jsonLines, readJson } from "./support.ts"

// Issue 21 item 5(b): an ACP child that floods its parent is stopped at `[limits]
// max_child_output_bytes` as failed, saying why; what is stored of it stays bounded, once.

const CAP = 1024 * 1024

/** Bytes of every file under `dir`. */
const bytesUnder = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce((n, e) => n + (e.isDirectory() ? bytesUnder(join(dir, e.name)) : statSync(join(dir, e.name)).size), 0)

describe("fault matrix: a child's output is bounded", { timeout: 90_000 }, () => {
  it("a child flooding 16 MB is failed at a 1 MiB cap; the session stores at most about one copy of the cap", async () => {
    const home = makeHome([`[limits]\nmax_child_output_bytes = ${CAP}\n`, agentToml("flood", {})].join("\n"))
    const r = await runDsh(["run", "--allow", "subagent", "--model", `scripted:${delegateScriptFile()}`, "--output-format", "json", "delegate acp:flood flood 16"], {
      env: { DSH_HOME: home, DSH_RESIDENT: "0" }
    })
    expect(r.code, r.stderr).toBe(0)
    const doc = JSON.parse(r.stdout) as { status: string; subagents: Array<{ name: string; status: string }> }
    expect(doc.status).toBe("completed")
    expect(doc.subagents).toEqual([expect.objectContaining({ name: "acp-flood-1", status: "failed" })])
    const dir = join(home, "sessions", sessionIds(home)[0]!)
    // Every record of the child says failed, and why.
    const meta = readJson(join(dir, "agents", "acp-flood-1", "meta.json"))
    expect(meta.status).toBe("failed")
    expect(String(meta.notes)).toContain("max_child_output_bytes")
    const state = readJson(join(dir, "state.json")).subagents as Record<string, { status: string }>
    expect(state["acp-flood-1"]?.status).toBe("failed")
    const turnEnd = jsonLines(join(dir, "agents", "acp-flood-1", "wire.jsonl")).find((e) => e.type === "turn-end")
    expect(turnEnd?.status).toBe("failed")
    // The parent's model was told in its tool result.
    const toolResult = jsonLines(join(dir, "wire.jsonl")).find((e) => e.type === "tool-result")
    const told = String(toolResult?.output)
    expect(told.includes("· failed ·") && told.includes("max_child_output_bytes"), told.slice(-400)).toBe(true)
    // Stored: the child's transcript within the cap; the whole session within one cap's worth more.
    expect(statSync(join(dir, "agents", "acp-flood-1", "wire.jsonl")).size).toBeLessThanOrEqual(CAP)
    expect(bytesUnder(dir)).toBeLessThan(2 * CAP)
  })

  it("an in-process child whose model floods 3 MB is failed at the cap too", async () => {
    const home = makeHome(`[limits]\nmax_child_output_bytes = ${CAP}\n`)
    const script = join(tempDir("dsh-flood-script-"), "script.json")
    writeFileSync(script, JSON.stringify({
      rules: [
        { when: { lastUser: "^FLOOD" }, reply: { text: "y".repeat(3 * CAP) } },
        { when: { lastUser: "^delegate", step: 0 }, reply: { toolCalls: [{ name: "subagent", arguments: { description: "flood", prompt: "FLOOD", agent: "explore" } }] } },
        { when: { lastUser: "^delegate", step: 1 }, reply: { text: "done" } }
      ]
    }))
    const r = await runDsh(["run", "--allow", "subagent", "--model", `scripted:${script}`, "--output-format", "json", "delegate"], { env: { DSH_HOME: home, DSH_RESIDENT: "0" } })
    expect(r.code, r.stderr).toBe(0)
    const doc = JSON.parse(r.stdout) as { subagents: Array<{ status: string }> }
    expect(doc.subagents.map((s) => s.status)).toEqual(["failed"])
    const dir = join(home, "sessions", sessionIds(home)[0]!)
    const told = String(jsonLines(join(dir, "wire.jsonl")).find((e) => e.type === "tool-result")?.output)
    expect(told.includes("max_child_output_bytes"), told.slice(-400)).toBe(true)
    expect(bytesUnder(dir)).toBeLessThan(2 * CAP)
  })
})
