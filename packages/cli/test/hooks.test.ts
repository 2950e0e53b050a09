import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { describe, expect, it } from "vitest"
import { type DshResult, makeHome, runDsh, tempDir } from "./support.ts"

/**
 * Claude Code-compatible hooks, end to end: `dsh run` (a real process, no terminal) on a scripted
 * model whose prompts name the tool call to make; hooks are small `sh` scripts; the result is
 * what the model read (`{{lastTool}}`).
 */
const SCRIPT = (() => {
  const file = join(tempDir("dsh-hooks-script-"), "script.json")
  writeFileSync(file, JSON.stringify({
    rules: [
      { when: { lastUser: "^write (\\S+)", step: 0 }, reply: { toolCalls: [{ name: "Write", arguments: { path: "{{1}}", content: "x\n" } }] } },
      { when: { lastUser: "^bash (.+)$", step: 0 }, reply: { toolCalls: [{ name: "Bash", arguments: { command: "{{1}}" } }] } },
      { when: { lastUser: "^delegate (\\S+) (.+)$", step: 0 }, reply: { toolCalls: [{ name: "subagent", arguments: { agent: "{{1}}", description: "child", prompt: "CHILD {{2}}" } }] } },
      { when: { lastUser: "^CHILD (.+)$", step: 0 }, reply: { toolCalls: [{ name: "Bash", arguments: { command: "{{1}}" } }] } },
      { when: { lastUser: "^A (Subagent)?Stop hook asks you to continue" }, reply: { text: "continued" } },
      { reply: { text: "result: {{lastTool}}" } }
    ]
  }))
  return file
})()

/** A hook script in its own directory; `body` is sh, the event's JSON on stdin. */
const hookScript = (body: string): string => {
  const file = join(tempDir("dsh-hook-"), "hook.sh")
  writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 })
  return file
}

const hookToml = (event: string, command: string, extra = ""): string =>
  `[[hooks.${event}]]\ncommand = ${JSON.stringify(command)}\n${extra}`

interface Run extends DshResult {
  readonly json: { readonly sessionId: string; readonly status: string; readonly result: string }
  readonly home: string
  readonly cwd: string
}

const run = async (prompt: string, flags: ReadonlyArray<string> = [], options: { readonly config?: string; readonly cwd?: string } = {}): Promise<Run> => {
  const home = makeHome(options.config)
  const cwd = options.cwd ?? tempDir("dsh-hooks-cwd-")
  const r = await runDsh(["run", "--model", `scripted:${SCRIPT}`, "--output-format", "json", ...flags, prompt], { cwd, env: { DSH_HOME: home } })
  const json = r.code === 0 || r.code === 1 ? JSON.parse(r.stdout || "{}") : {}
  return { ...r, json, home, cwd }
}

const wire = (home: string, sessionId: string, child?: string): Array<Record<string, unknown>> =>
  readFileSync(join(home, "sessions", sessionId, ...(child === undefined ? [] : ["agents", child]), "wire.jsonl"), "utf8")
    .split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Record<string, unknown>)

const hookRuns = (r: Run, child?: string) => wire(r.home, r.json.sessionId, child).filter((x) => x.type === "hook")

const inputs = (log: string): Array<Record<string, unknown>> =>
  readFileSync(log, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Record<string, unknown>)

describe("PreToolUse", () => {
  it("exit 2 blocks Bash(git push …): the tool does not run and the model reads stderr", async () => {
    const guard = hookScript(`if grep -q '"command":"git push'; then echo "pushing is not allowed here" >&2; exit 2; fi; exit 0`)
    const r = await run("bash git push origin main", ["--allow", "Bash"], { config: hookToml("PreToolUse", guard, `matcher = "Bash"\n`) })
    expect(r.code, r.stderr).toBe(0)
    expect(r.json.result).toBe("result: pushing is not allowed here")
    expect(hookRuns(r)).toMatchObject([{ event: "PreToolUse", hook: guard, outcome: "block", exitCode: 2, message: "pushing is not allowed here" }])
    // Another command passes the same hook.
    const ok = await run("bash echo fine", ["--allow", "Bash"], { config: hookToml("PreToolUse", guard, `matcher = "Bash"\n`) })
    expect(ok.json.result).toContain("result: fine")
  }, 60_000)

  it("a matcher that does not match leaves the call alone", async () => {
    const guard = hookScript(`echo no >&2; exit 2`)
    const r = await run("bash echo fine", ["--allow", "Bash"], { config: hookToml("PreToolUse", guard, `matcher = "Edit|Write"\n`) })
    expect(r.json.result).toContain("result: fine")
    expect(hookRuns(r)).toEqual([])
  }, 60_000)

  it("permissionDecision deny blocks with its reason; allow skips the question, but deny rules still win", async () => {
    const deny = hookScript(`echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no echo today"}}'`)
    const denied = await run("bash echo hi", ["--allow", "Bash"], { config: hookToml("PreToolUse", deny) })
    expect(denied.json.result).toBe("result: no echo today")
    expect(hookRuns(denied)).toMatchObject([{ outcome: "deny" }])

    const allow = hookScript(`echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'`)
    // Without a terminal, Write would be a denial (it asks); the hook's allow answers instead.
    const allowed = await run("write a.txt", [], { config: hookToml("PreToolUse", allow) })
    expect(allowed.code, allowed.stderr).toBe(0)
    expect(existsSync(join(allowed.cwd, "a.txt"))).toBe(true)
    expect(wire(allowed.home, allowed.json.sessionId).filter((x) => x.type === "permission")).toMatchObject([{ decision: "allowed", rule: `hook: ${allow}` }])
    const ruled = await run("write a.txt", ["--deny", "Write"], { config: hookToml("PreToolUse", allow) })
    expect(ruled.json.result).toContain("is denied by the rule \"Write\"")
    expect(existsSync(join(ruled.cwd, "a.txt"))).toBe(false)
  }, 60_000)

  it("a hook that hangs is killed at its timeout: a warning, and the run completes", async () => {
    const hang = hookScript(`sleep 600`)
    const r = await run("bash echo survived", ["--allow", "Bash"], { config: hookToml("PreToolUse", hang, "timeout = 1\n") })
    expect(r.code, r.stderr).toBe(0)
    expect(r.json.result).toContain("result: survived")
    expect(hookRuns(r)).toMatchObject([{ outcome: "warning", message: "timed out after 1 s and was killed" }])
  }, 60_000)

  it("a hook that crashes (another exit code) is a warning", async () => {
    const crash = hookScript(`echo boom >&2; exit 3`)
    const r = await run("bash echo fine", ["--allow", "Bash"], { config: hookToml("PreToolUse", crash) })
    expect(r.json.result).toContain("result: fine")
    expect(hookRuns(r)).toMatchObject([{ outcome: "warning", exitCode: 3, message: "exited with 3: boom" }])
  }, 60_000)
})

describe("other events", () => {
  it("PostToolUse gets tool_response; UserPromptSubmit gets the prompt", async () => {
    const dir = tempDir("dsh-hooks-log-")
    const log = join(dir, "inputs.jsonl")
    const record = hookScript(`cat >> ${log}; echo >> ${log}`)
    const r = await run("bash echo hello", ["--allow", "Bash"], { config: hookToml("PostToolUse", record) + hookToml("UserPromptSubmit", record) })
    expect(r.code, r.stderr).toBe(0)
    const seen = inputs(log)
    expect(seen).toMatchObject([
      { hook_event_name: "UserPromptSubmit", prompt: "bash echo hello", session_id: r.json.sessionId },
      { hook_event_name: "PostToolUse", tool_name: "Bash", tool_input: { command: "echo hello" }, tool_response: { is_error: false } }
    ])
    expect(String((seen[1]!.tool_response as { content: string }).content)).toContain("hello")
  }, 60_000)

  it("SessionStart and SessionEnd frame a run", async () => {
    const dir = tempDir("dsh-hooks-log-")
    const log = join(dir, "inputs.jsonl")
    const record = hookScript(`cat >> ${log}; echo >> ${log}`)
    const r = await run("hello", [], { config: hookToml("SessionStart", record) + hookToml("SessionEnd", record) })
    expect(r.code, r.stderr).toBe(0)
    expect(inputs(log).map((i) => [i.hook_event_name, i.session_id])).toEqual([["SessionStart", r.json.sessionId], ["SessionEnd", r.json.sessionId]])
  }, 60_000)

  it("UserPromptSubmit exit 2 refuses the prompt", async () => {
    const refuse = hookScript(`echo "no prompts on Fridays" >&2; exit 2`)
    const r = await run("bash echo hello", ["--allow", "Bash"], { config: hookToml("UserPromptSubmit", refuse) })
    expect(r.json.status).toBe("failed")
    expect(JSON.stringify(r.json)).toContain("no prompts on Fridays")
  }, 60_000)

  it("Stop exit 2 makes the agent continue once (stop_hook_active then says so)", async () => {
    const stop = hookScript(`if grep -q '"stop_hook_active":true'; then exit 0; fi; echo "run the tests first" >&2; exit 2`)
    const r = await run("hello", [], { config: hookToml("Stop", stop) })
    expect(r.code, r.stderr).toBe(0)
    expect(r.json.result).toBe("continued")
    expect(hookRuns(r)).toMatchObject([{ event: "Stop", outcome: "block" }, { event: "Stop", outcome: "continue" }])
    const users = wire(r.home, r.json.sessionId).filter((x) => x.type === "message" && (x.message as { role: string }).role === "user")
    expect(users.map((u) => (u.message as { content: string }).content)).toEqual(["hello", "A Stop hook asks you to continue: run the tests first"])
  }, 60_000)

  it("SubagentStart/SubagentStop get agent_id and agent_type; a child's hook runs show in dsh subagents log --tools", async () => {
    const dir = tempDir("dsh-hooks-log-")
    const log = join(dir, "inputs.jsonl")
    const record = hookScript(`cat >> ${log}; echo >> ${log}`)
    const guard = hookScript(`echo "not in children" >&2; exit 2`)
    const home = makeHome(hookToml("SubagentStart", record) + hookToml("SubagentStop", record) + hookToml("PreToolUse", guard, `matcher = "Bash"\n`))
    mkdirSync(join(home, "agents"))
    writeFileSync(join(home, "agents", "runner.md"), "---\ndescription: runs\ntools: Bash\n---\nYou run.\n")
    const cwd = tempDir("dsh-hooks-cwd-")
    const raw = await runDsh(["run", "--model", `scripted:${SCRIPT}`, "--output-format", "json", "--allow", "subagent", "--allow", "Bash", "delegate runner echo hi"], { cwd, env: { DSH_HOME: home } })
    expect(raw.code, raw.stderr).toBe(0)
    const json = JSON.parse(raw.stdout) as { sessionId: string; result: string }
    expect(inputs(log)).toMatchObject([
      { hook_event_name: "SubagentStart", agent_id: "runner-1", agent_type: "runner" },
      { hook_event_name: "SubagentStop", agent_id: "runner-1", agent_type: "runner" }
    ])
    // The child's own tool call went through the tree's PreToolUse hook.
    const shown = await runDsh(["subagents", "log", "runner-1", "--tools", "--session", json.sessionId], { env: { DSH_HOME: home } })
    expect(shown.stdout).toContain(`↯ hook PreToolUse ${JSON.stringify(guard)} block (exit 2): not in children`)
  }, 60_000)
})

describe("in-process children", () => {
  it("SubagentStop exit 2 sends an in-process child back to work once", async () => {
    const stop = hookScript(`if grep -q '"stop_hook_active":true'; then exit 0; fi; echo "check your work" >&2; exit 2`)
    const home = makeHome(hookToml("SubagentStop", stop))
    mkdirSync(join(home, "agents"))
    writeFileSync(join(home, "agents", "runner.md"), "---\ndescription: runs\ntools: Bash\n---\nYou run.\n")
    const cwd = tempDir("dsh-hooks-cwd-")
    const raw = await runDsh(["run", "--model", `scripted:${SCRIPT}`, "--output-format", "json", "--allow", "subagent", "--allow", "Bash", "delegate runner echo hi"], { cwd, env: { DSH_HOME: home } })
    expect(raw.code, raw.stderr).toBe(0)
    const json = JSON.parse(raw.stdout) as { sessionId: string; result: string }
    expect(json.result).toContain("continued")
    const r = { ...raw, json: { ...json, status: "" }, home, cwd }
    expect(hookRuns(r, "runner-1")).toMatchObject([
      { event: "SubagentStop", outcome: "block", message: "check your work" },
      { event: "SubagentStop", outcome: "continue" }
    ])
    // Once: the parent's own answer does not run it again.
    expect(hookRuns(r)).toEqual([])
  }, 60_000)
})

describe("agent files", () => {
  it("an agent's hooks frontmatter applies to that agent's calls, not to the main agent's", async () => {
    const guard = hookScript(`echo "the runner may not run this" >&2; exit 2`)
    const home = makeHome()
    mkdirSync(join(home, "agents"))
    writeFileSync(join(home, "agents", "runner.md"), [
      "---",
      "description: runs",
      "tools: Bash",
      "hooks:",
      "  PreToolUse:",
      "    - matcher: Bash",
      "      hooks:",
      "        - type: command",
      `          command: ${JSON.stringify(guard)}`,
      "---",
      "You run.",
      ""
    ].join("\n"))
    const cwd = tempDir("dsh-hooks-cwd-")
    const child = await runDsh(["run", "--model", `scripted:${SCRIPT}`, "--output-format", "json", "--allow", "subagent", "--allow", "Bash", "delegate runner echo hi"], { cwd, env: { DSH_HOME: home } })
    expect(child.code, child.stderr).toBe(0)
    expect((JSON.parse(child.stdout) as { result: string }).result).toContain("the runner may not run this")
    const main = await runDsh(["run", "--model", `scripted:${SCRIPT}`, "--output-format", "json", "--allow", "Bash", "bash echo hi"], { cwd, env: { DSH_HOME: home } })
    expect((JSON.parse(main.stdout) as { result: string }).result).toContain("result: hi")
  }, 60_000)
})

describe("out-of-process dsh children", () => {
  it("an sdk:dsh child: SubagentStart/Stop in the parent, and the tree's PreToolUse reaches the child's own tool calls", async () => {
    const dir = tempDir("dsh-hooks-log-")
    const log = join(dir, "inputs.jsonl")
    const record = hookScript(`cat >> ${log}; echo >> ${log}`)
    const guard = hookScript(`echo "blocked in the child process" >&2; exit 2`)
    const r = await run("delegate sdk:dsh echo from-the-child", ["--allow", "subagent", "--allow", "Bash"], {
      config: hookToml("SubagentStart", record) + hookToml("SubagentStop", record) + hookToml("PreToolUse", guard, `matcher = "Bash"\n`)
    })
    expect(r.code, r.stderr).toBe(0)
    expect(r.json.result).toContain("blocked in the child process")
    expect(inputs(log)).toMatchObject([
      { hook_event_name: "SubagentStart", agent_id: "sdk-dsh-1", agent_type: "sdk:dsh" },
      { hook_event_name: "SubagentStop", agent_id: "sdk-dsh-1", agent_type: "sdk:dsh" }
    ])
    expect(hookRuns(r, "sdk-dsh-1")).toMatchObject([{ event: "PreToolUse", outcome: "block", message: "blocked in the child process" }])
  }, 60_000)
})

describe("vendor ACP children", () => {
  it("an ACP child's permission request goes through PreToolUse: exit 2 rejects it, allow approves it", async () => {
    const agent = resolve(import.meta.dirname, "fixtures/asking-agent.mjs")
    const acp = `[acp.agents.codex]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(agent)}]\n`
    const guardAll = hookScript(`input=$(cat); case "$input" in *'git push'*) echo "no pushing from vendors" >&2; exit 2;; esac; exit 0`)
    const denied = await run("delegate acp:codex git push", ["--allow", "subagent", "--allow", "Bash"], { config: acp + hookToml("PreToolUse", guardAll, `matcher = "Bash"\n`) })
    expect(denied.code, denied.stderr).toBe(0)
    expect(denied.json.result).toContain("rejected: git push (no pushing from vendors")
    expect(hookRuns(denied, "acp-codex-1")).toMatchObject([{ event: "PreToolUse", outcome: "block", id: "call-1" }])
    const allow = hookScript(`echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`)
    // No rule allows git status and no one can be asked: the hook's allow approves it.
    const allowed = await run("delegate acp:codex git status", ["--allow", "subagent"], { config: acp + hookToml("PreToolUse", allow) })
    expect(allowed.json.result).toContain("approved: git status")
  }, 60_000)
})

describe("settings", () => {
  it("a malformed [[hooks]] entry is exit 2 naming the key", async () => {
    const r = await run("hello", [], { config: `[[hooks.PreToolUse]]\nmatcher = "Bash"\n` })
    expect(r.code).toBe(2)
    expect(r.stderr).toContain("[[hooks.PreToolUse]] #1 command")
    const unknown = await run("hello", [], { config: `[[hooks.BeforeTool]]\ncommand = "true"\n` })
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain("hooks.BeforeTool")
  }, 60_000)

  it("a project's .claude/settings.json hooks apply with --trust-project, and not without", async () => {
    const cwd = tempDir("dsh-hooks-project-")
    mkdirSync(join(cwd, ".git"))
    mkdirSync(join(cwd, ".claude"))
    const guard = hookScript(`echo "the project says no" >&2; exit 2`)
    writeFileSync(join(cwd, ".claude", "settings.json"), JSON.stringify({
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: guard, timeout: 10 }] }] }
    }))
    const trusted = await run("bash echo hi", ["--allow", "Bash", "--trust-project"], { cwd })
    expect(trusted.code, trusted.stderr).toBe(0)
    expect(trusted.json.result).toBe("result: the project says no")
    const untrusted = await run("bash echo hi", ["--allow", "Bash"], { cwd })
    expect(untrusted.json.result).toContain("result: hi")
  }, 60_000)

  it("a trusted project's .dsh/config.toml [[hooks]] apply", async () => {
    const cwd = tempDir("dsh-hooks-project-")
    mkdirSync(join(cwd, ".git"))
    mkdirSync(join(cwd, ".dsh"))
    const guard = hookScript(`echo "the project config says no" >&2; exit 2`)
    writeFileSync(join(cwd, ".dsh", "config.toml"), hookToml("PreToolUse", guard))
    const trusted = await run("bash echo hi", ["--allow", "Bash", "--trust-project"], { cwd })
    expect(trusted.json.result).toBe("result: the project config says no")
    const untrusted = await run("bash echo hi", ["--allow", "Bash"], { cwd })
    expect(untrusted.json.result).toContain("result: hi")
  }, 60_000)
})
