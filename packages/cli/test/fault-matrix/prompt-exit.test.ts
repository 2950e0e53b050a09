import { ProcessChecks } from "@dsh/subprocess/testing"
import { readdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { makeHome, runDsh, sessionIds, tempDir } from "../support.ts"
import { agentToml, delegateScriptFile, readJson } from "./support.ts"

// Issue 21 item 4: once the main turn has ended, `dsh run` exits without waiting on the graces
// of its warm children. The timing is in packages/cli/bench/prompt-exit.ts; here the mechanism:
// a warm child that ignores EOF and SIGTERM is ended (SIGKILL after the short grace) before
// dsh exits, so nothing is left behind the moment it has.
describe("fault matrix: prompt exit", { timeout: 90_000 }, () => {
  it("dsh run exits after its answer with a warm ACP child that ignores EOF and SIGTERM, and leaves no process behind", async () => {
    const pids = join(tempDir("dsh-exit-pids-"), "pids")
    const home = makeHome(agentToml("stubborn", { exitOnEof: false, ignoreSigterm: true, pidFile: pids }))
    const r = await runDsh(["run", "--allow", "subagent", "--model", `scripted:${delegateScriptFile()}`, "delegate acp:stubborn CONFORMANCE echo done"], {
      env: { DSH_HOME: home, DSH_RESIDENT: "0" }
    })
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("Parent got: echo done")
    const tree = ProcessChecks.readPids(pids)
    expect(tree.length).toBeGreaterThan(0)
    // Checked at once: the child was stopped before dsh exited, not by a watchdog afterwards.
    expect(tree.filter((pid) => !ProcessChecks.isGone(pid))).toEqual([])
  })

  it("a dsh run with two warm children (ACP and SDK) exits with both gone", async () => {
    const pids = join(tempDir("dsh-exit-pids-"), "pids")
    const home = makeHome(agentToml("stubborn", { exitOnEof: false, ignoreSigterm: true, pidFile: pids }))
    const script = join(tempDir("dsh-exit-script-"), "script.json")
    writeFileSync(script, JSON.stringify({
      rules: [
        {
          when: { lastUser: "^both", step: 0 },
          reply: {
            toolCalls: [
              { name: "subagent", arguments: { description: "acp", prompt: "CONFORMANCE echo one", agent: "acp:stubborn" } },
              { name: "subagent", arguments: { description: "sdk", prompt: "say hi", agent: "sdk:dsh" } }
            ]
          }
        },
        { when: { lastUser: "^both", step: 1 }, reply: { text: "both answered" } },
        // The SDK child runs on the same script.
        { when: { lastUser: "^say hi" }, reply: { text: "hi" } }
      ]
    }))
    const r = await runDsh(["run", "--allow", "subagent", "--model", `scripted:${script}`, "--output-format", "json", "both"], { env: { DSH_HOME: home, DSH_RESIDENT: "0" } })
    expect(r.code, r.stderr).toBe(0)
    const doc = JSON.parse(r.stdout) as { result: string; subagents: Array<{ provider: string; status: string }> }
    expect(doc.result).toBe("both answered")
    expect(doc.subagents.map((s) => [s.provider, s.status]).sort()).toEqual([["acp", "completed"], ["dsh-sdk", "completed"]])
    // Every child's own process (meta.json's pid) and the fake's helpers are gone.
    const session = join(home, "sessions", sessionIds(home)[0]!)
    const childPids = readdirSync(join(session, "agents")).map((h) => Number(readJson(join(session, "agents", h, "meta.json")).pid))
    expect(childPids).toHaveLength(2)
    expect([...childPids, ...ProcessChecks.readPids(pids)].filter((pid) => !ProcessChecks.isGone(pid))).toEqual([])
  })
})
