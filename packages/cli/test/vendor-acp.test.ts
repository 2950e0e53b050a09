import { FakeAcpAgent } from "@dsh/subagent-acp/testing"
import { ProcessChecks } from "@dsh/subprocess/testing"
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { DSH, makeHome, runDsh, tempDir } from "./support.ts"

// `dsh` with vendor-like ACP children (`@dsh/subagent-acp/testing`'s fake agent, a real process
// built with the ACP SDK) configured in config.toml, as a user would run them.

const launched: Array<ChildProcess> = []
afterEach(() => {
  for (const p of launched.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL")
})

/** A `[acp.agents.<name>]` table running the fake agent. */
const agentToml = (name: string, options: Omit<FakeAcpAgent.FakeAcpAgentOptions, "name">, extra = "") =>
  [
    `[acp.agents.${name}]`,
    `command = ${JSON.stringify(process.execPath)}`,
    `args = ${JSON.stringify([FakeAcpAgent.fakeAcpAgentScript(), ...FakeAcpAgent.fakeAcpAgentArgs(options)])}`,
    extra,
    ""
  ].join("\n")

/** The parent: `delegate AGENT PROMPT` → subagent; `continue HANDLE PROMPT` → subagent then send_message. */
const parentScript = () => {
  const file = join(tempDir("dsh-vendor-script-"), "script.json")
  writeFileSync(file, JSON.stringify({
    rules: [
      { when: { lastUser: "^delegate (\\S+) (.*)$", step: 0 }, reply: { toolCalls: [{ name: "subagent", arguments: { description: "vendor", prompt: "{{2}}", agent: "{{1}}" } }] } },
      { when: { lastUser: "^delegate", step: 1 }, reply: { text: "Parent got: {{lastTool|firstLine}}" } },
      { when: { lastUser: "^continue (\\S+) (\\S+) (.*)$", step: 0 }, reply: { toolCalls: [{ name: "subagent", arguments: { description: "vendor", prompt: "{{3}}", agent: "{{1}}" } }] } },
      { when: { lastUser: "^continue (\\S+) (\\S+) (.*)$", step: 1 }, reply: { toolCalls: [{ name: "send_message", arguments: { to: "{{2}}", message: "{{3}}" } }] } },
      { when: { lastUser: "^continue", step: 2 }, reply: { text: "Parent got: {{lastTool|firstLine}}" } }
    ]
  }))
  return file
}

const sessionOf = (home: string) => {
  const id = readdirSync(join(home, "sessions"))[0]!
  return { id, dir: join(home, "sessions", id) }
}
const wire = (file: string) => readFileSync(file, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Record<string, unknown>)
const pidIn = (text: string) => Number(/pid (\d+)/.exec(text)?.[1])

/** Polls an observable condition (a file, a pid); bounded. */
const until = async (what: string, holds: () => boolean, attempts = 750) => {
  for (let i = 0; i < attempts; i++) {
    if (holds()) return
    await new Promise((r) => setTimeout(r, 20))
  }
  throw new Error(`timed out waiting for ${what}`)
}

describe("vendor ACP children under dsh run", { timeout: 90_000 }, () => {
  it("item 5: after a kill -9 of dsh run, the ACP child (which ignores SIGTERM and EOF) and its helper are gone", async () => {
    const pids = join(tempDir("dsh-vendor-pids-"), "pids")
    const home = makeHome(agentToml("codex", { exitOnEof: false, ignoreSigterm: true, pidFile: pids }))
    const run = spawn(DSH, ["run", "--allow", "subagent", "--model", `scripted:${parentScript()}`, "delegate acp:codex silent"], {
      cwd: tempDir("dsh-vendor-cwd-"),
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", DSH_HOME: home },
      stdio: "ignore"
    })
    launched.push(run)
    // The child is waiting on its silent model, with a helper process of its own.
    await until("the ACP child and its helper", () => existsSync(pids) && ProcessChecks.readPids(pids).length === 2)
    const tree = ProcessChecks.readPids(pids)
    expect(tree.every((pid) => !ProcessChecks.isGone(pid))).toBe(true)
    run.kill("SIGKILL")
    await until(`the ACP child and its helper to be gone (${tree.join(", ")})`, () => tree.every(ProcessChecks.isGone))
  })

  it("item 6: an invalid [acp.agents.*] entry is exit 2 naming the key; agents list shows it with the reason", async () => {
    const home = makeHome([agentToml("good", {}), "[acp.agents.broken]", "args = [\"--acp\"]", ""].join("\n"))
    const r = await runDsh(["run", "--allow", "subagent", "--model", "scripted", "hello"], { env: { DSH_HOME: home } })
    expect(r.code).toBe(2)
    expect(r.stderr.trim().split("\n")).toHaveLength(1)
    expect(r.stderr).toContain("[acp.agents.broken] \"command\" is required")
    expect(readdirSync(home)).not.toContain("sessions")
    const list = await runDsh(["agents", "list", "--json"], { env: { DSH_HOME: home } })
    expect(list.code).toBe(0)
    const doc = JSON.parse(list.stdout) as { acpAgents: Array<Record<string, string>>; agents: Array<unknown> }
    expect(doc.agents.length).toBeGreaterThan(0)
    expect(doc.acpAgents).toEqual([
      { name: "good", command: process.execPath, status: "ok" },
      { name: "broken", command: "", status: "invalid", reason: "[acp.agents.broken] \"command\" is required" }
    ])
    const text = await runDsh(["agents", "list"], { env: { DSH_HOME: home } })
    expect(text.stdout).toContain("acp:broken")
    expect(text.stdout).toContain("invalid")
  })

  it("items 1, 2, 7: usage from usage_update in subagents list; the late command and the permission in subagents log; continued cold by subagents send", async () => {
    const state = tempDir("dsh-vendor-state-")
    const home = makeHome([
      agentToml("codex", { usage: "update", exitOnEof: false, lateInput: true, loadSession: true, stateDir: state }),
      agentToml("plain", {})
    ].join("\n"))
    const env = { DSH_HOME: home }
    const first = await runDsh(["run", "--allow", "subagent", "--model", `scripted:${parentScript()}`, "--allow", "Bash(git status*)", "--output-format", "json", "delegate acp:codex run git status"], { env })
    expect(first.stderr).toBe("")
    expect(first.code).toBe(0)
    expect((JSON.parse(first.stdout) as { result: string }).result).toBe("Parent got: done: ran git status")
    const { id } = sessionOf(home)

    const list = JSON.parse((await runDsh(["subagents", "list", "--session", id, "--json"], { env })).stdout) as { subagents: Array<{ name: string; usage: { totalTokens: number } }> }
    expect(list.subagents).toEqual([expect.objectContaining({ name: "acp-codex-1", usage: { inputTokens: 26, outputTokens: 0, totalTokens: 26 } })])

    const log = await runDsh(["subagents", "log", "acp-codex-1", "--tools", "--session", id], { env })
    expect(log.stdout).toContain("→ Terminal {\"command\":\"git status\"}")
    // Decided by the parent's rule on the call as merged: its command came in a late update.
    expect(log.stdout).toContain("⚑ Bash(git status) allowed: allow: Bash(git status*)")
    const logJson = JSON.parse((await runDsh(["subagents", "log", "acp-codex-1", "--tools", "--json", "--session", id], { env })).stdout) as { records: Array<{ type: string }> }
    expect(logJson.records.map((r) => r.type)).toEqual(["message", "tool-call", "permission", "tool-result", "message"])

    // The run's process is gone, and so is its warm child: the agent loads its session on a new process.
    const sent = await runDsh(["subagents", "send", "acp-codex-1", "CONFORMANCE recall", "--session", id], { env })
    expect(sent.stderr).toBe("")
    expect(sent.code).toBe(0)
    expect(sent.stdout.trim()).toBe("recall: run git status")

    // An agent that cannot load sessions is refused, naming why.
    const second = await runDsh(["run", "--allow", "subagent", "--session", id, "delegate acp:plain whoami"], { env })
    expect(second.code).toBe(0)
    const refused = await runDsh(["subagents", "send", "acp-plain-1", "whoami", "--session", id], { env })
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain("acp-plain-1 cannot be continued: its ACP agent did not advertise loadSession")
  })

  it("item 7: within a run, send_message continues the finished ACP child warm: the same process and session", async () => {
    const home = makeHome(agentToml("claude", { exitOnEof: false }))
    const r = await runDsh(["run", "--allow", "subagent", "--model", `scripted:${parentScript()}`, "continue acp:claude acp-claude-1 whoami"], { env: { DSH_HOME: home } })
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    const { dir } = sessionOf(home)
    const answers = wire(join(dir, "agents", "acp-claude-1", "wire.jsonl"))
      .filter((e) => e.type === "message" && (e.message as { role: string }).role === "assistant")
      .map((e) => (e.message as { content: string }).content)
    expect(answers).toHaveLength(2)
    expect(pidIn(answers[0]!)).toBe(pidIn(answers[1]!))
    expect(answers[1]).toContain("turn 2")
  })
})
