import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { describe, expect, it } from "vitest"
import { type DshResult, makeHome, runDsh, sessionIds, tempDir } from "./support.ts"

/**
 * The permission rule matrix, end to end: `dsh run` (a real process, no terminal) on a
 * scripted model whose prompts name the tool call to make; the result is what the model read.
 */
const script = (): string => {
  const file = join(tempDir("dsh-perm-script-"), "script.json")
  writeFileSync(file, JSON.stringify({
    rules: [
      { when: { lastUser: "^write (\\S+)", step: 0 }, reply: { toolCalls: [{ name: "Write", arguments: { path: "{{1}}", content: "x\n" } }] } },
      { when: { lastUser: "^read (\\S+)", step: 0 }, reply: { toolCalls: [{ name: "Read", arguments: { path: "{{1}}" } }] } },
      { when: { lastUser: "^bash (.+)$", step: 0 }, reply: { toolCalls: [{ name: "Bash", arguments: { command: "{{1}}" } }] } },
      { when: { lastUser: "^delegate (\\S+) (.+)$", step: 0 }, reply: { toolCalls: [{ name: "subagent", arguments: { agent: "{{1}}", description: "child", prompt: "CHILD {{2}}" } }] } },
      {
        when: { lastUser: "^create (.+)$", step: 0 },
        reply: { toolCalls: [{ name: "create_subagent", arguments: { name: "wide", description: "runs commands", systemPrompt: "You run commands.", tools: ["Bash"] } }] }
      },
      { when: { lastUser: "^create (.+)$", step: 1 }, reply: { toolCalls: [{ name: "subagent", arguments: { agent: "wide", description: "child", prompt: "CHILD {{1}}" } }] } },
      { when: { lastUser: "^CHILD (.+)$", step: 0 }, reply: { toolCalls: [{ name: "Bash", arguments: { command: "{{1}}" } }] } },
      { reply: { text: "result: {{lastTool}}" } }
    ]
  }))
  return file
}

const SCRIPT = script()

interface Run extends DshResult {
  readonly json: { readonly sessionId: string; readonly status: string; readonly result: string }
}

/** `dsh run --output-format json` with the script; `config` becomes the home's config.toml. */
const run = async (prompt: string, flags: ReadonlyArray<string> = [], options: { readonly config?: string; readonly cwd?: string; readonly home?: string } = {}): Promise<Run & { home: string; cwd: string }> => {
  const home = options.home ?? makeHome(options.config)
  const cwd = options.cwd ?? tempDir("dsh-perm-cwd-")
  const r = await runDsh(["run", "--model", `scripted:${SCRIPT}`, "--output-format", "json", ...flags, prompt], { cwd, env: { DSH_HOME: home } })
  const json = r.code === 0 || r.code === 1 ? JSON.parse(r.stdout || "{}") : {}
  return { ...r, json, home, cwd }
}

const wire = (home: string, sessionId: string, child?: string): Array<Record<string, unknown>> =>
  readFileSync(join(home, "sessions", sessionId, ...(child === undefined ? [] : ["agents", child]), "wire.jsonl"), "utf8")
    .split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Record<string, unknown>)

const permissions = (home: string, sessionId: string, child?: string) => wire(home, sessionId, child).filter((r) => r.type === "permission")

describe("permission rules in dsh run (no terminal)", () => {
  it("deny beats allow, and --deny joins the configured rules", async () => {
    const config = "[permissions]\nallow = [\"Bash\"]\ndeny = [\"Bash(rm -rf *)\"]\n"
    const cwd = tempDir("dsh-perm-cwd-")
    mkdirSync(join(cwd, "victim"))
    const denied = await run("bash rm -rf victim", [], { config, cwd })
    expect(denied.code, denied.stderr).toBe(0)
    expect(denied.json.result).toContain("Bash(rm -rf victim) is denied by the rule \"Bash(rm -rf *)\"")
    expect(existsSync(join(cwd, "victim"))).toBe(true)
    expect(permissions(denied.home, denied.json.sessionId)).toMatchObject([
      { subject: "Bash(rm -rf victim)", decision: "denied", via: "rule", rule: "deny: Bash(rm -rf *)" }
    ])
    // A compound command is denied when any part is.
    const compound = await run("bash echo hi && rm -rf victim", [], { config, cwd })
    expect(compound.json.result).toContain("is denied by the rule")
    const allowed = await run("bash echo hello", [], { config })
    expect(allowed.json.result).toContain("hello")
    expect(permissions(allowed.home, allowed.json.sessionId)).toMatchObject([{ decision: "allowed", via: "rule", rule: "allow: Bash" }])
    const flagged = await run("bash echo hello", ["--deny", "Bash(echo *)"], { config })
    expect(flagged.json.result).toContain("Bash(echo hello) is denied by the rule \"Bash(echo *)\"")
  }, 60_000)

  it("ask without a terminal (or with -p) is a denial naming the rule and how to allow it", async () => {
    const asked = await run("write a.txt")
    expect(asked.code, asked.stderr).toBe(0)
    expect(asked.json.result).toContain("Write(a.txt) needs approval (mode: default) and no one can be asked (stdin is not a terminal)")
    expect(asked.json.result).toContain("run with --allow 'Write(a.txt)' or add allow = [\"Write(a.txt)\"] under [permissions]")
    expect(existsSync(join(asked.cwd, "a.txt"))).toBe(false)
    expect(permissions(asked.home, asked.json.sessionId)).toMatchObject([{ subject: "Write(a.txt)", decision: "denied", via: "asked", rule: "mode: default", by: "none" }])
    const printed = await run("write a.txt", ["-p"])
    expect(printed.json.result).toContain("needs approval (mode: default) and -p runs without questions")
    const allowed = await run("write a.txt", ["--allow", "Write(a.txt)"])
    expect(readFileSync(join(allowed.cwd, "a.txt"), "utf8")).toBe("x\n")
    // An ask rule beats allow: the denial says so instead of suggesting --allow.
    const ruled = await run("write a.txt", ["--allow", "Write(a.txt)"], { config: "[permissions]\nask = [\"Write\"]\n" })
    expect(ruled.json.result).toContain("needs approval (ask: Write)")
    expect(ruled.json.result).toContain("matches the rule \"Write\" in [permissions] ask, which beats allow")
    expect(existsSync(join(ruled.cwd, "a.txt"))).toBe(false)
  }, 60_000)

  it("plan denies every change; reading still works", async () => {
    const plan = await run("write a.txt", ["--permission-mode", "plan"])
    expect(plan.json.result).toContain("Write(a.txt) is denied: the permission mode is plan")
    expect(existsSync(join(plan.cwd, "a.txt"))).toBe(false)
    const bash = await run("bash echo hi", ["--permission-mode", "plan"])
    expect(bash.json.result).toContain("Bash(echo hi) is denied: the permission mode is plan")
    const cwd = tempDir("dsh-perm-cwd-")
    writeFileSync(join(cwd, "notes.txt"), "plans are read\n")
    const read = await run("read notes.txt", ["--permission-mode", "plan"], { cwd })
    expect(read.json.result).toContain("plans are read")
    expect(permissions(read.home, read.json.sessionId)).toMatchObject([{ subject: "Read(notes.txt)", decision: "allowed", via: "mode", rule: "mode: plan" }])
  }, 60_000)

  it("acceptEdits allows edits inside the working directory only", async () => {
    const inside = await run("write a.txt", ["--permission-mode", "acceptEdits"])
    expect(readFileSync(join(inside.cwd, "a.txt"), "utf8")).toBe("x\n")
    const outside = await run("write ../escaped.txt", ["--permission-mode", "acceptEdits"])
    expect(outside.json.result).toContain("needs approval (mode: acceptEdits)")
    expect(existsSync(resolve(outside.cwd, "../escaped.txt"))).toBe(false)
    const bash = await run("bash echo hi", ["--permission-mode", "acceptEdits"])
    expect(bash.json.result).toContain("needs approval (mode: acceptEdits)")
  }, 60_000)

  it("bypass (--yolo) allows everything but still honours deny", async () => {
    const ok = await run("write ok.txt", ["--yolo", "--deny", "Write(secret.txt)"])
    expect(readFileSync(join(ok.cwd, "ok.txt"), "utf8")).toBe("x\n")
    const secret = await run("write secret.txt", ["--yolo", "--deny", "Write(secret.txt)"])
    expect(secret.json.result).toContain("Write(secret.txt) is denied by the rule \"Write(secret.txt)\"")
    // A path rule without a slash matches at any depth, as in .gitignore.
    const nested = await run("write sub/.env", [], { config: "[permissions]\nmode = \"bypass\"\ndeny = [\"Write(.env)\"]\n" })
    expect(nested.json.result).toContain("Write(sub/.env) is denied by the rule \"Write(.env)\"")
    const bash = await run("bash echo yolo", ["--yolo"])
    expect(bash.json.result).toContain("yolo")
  }, 60_000)

  it("a malformed rule or mode is exit 2 naming it, before anything is written", async () => {
    for (const [flags, config, expected] of [
      [["--allow", "Bash("], undefined, "--allow: malformed permission rule \"Bash(\""],
      [["--deny", "Bash()"], undefined, "--deny: malformed permission rule \"Bash()\""],
      [["--permission-mode", "yolo"], undefined, "--permission-mode must be one of default, acceptEdits, plan, bypass"],
      [["--yolo", "--permission-mode", "plan"], undefined, "--yolo is --permission-mode bypass"],
      [[], "[permissions]\ndeny = [\"Write(.env\"]\n", "[permissions] deny has a malformed permission rule \"Write(.env\""],
      [[], "[permissions]\nmode = \"careful\"\n", "[permissions] mode = \"careful\" is not allowed"],
      [[], "[sandbox]\nmode = \"maybe\"\n", "[sandbox] mode = \"maybe\" is not allowed: it must be one of auto, on, off"]
    ] as const) {
      const home = makeHome(config)
      const r = await runDsh(["run", "--model", `scripted:${SCRIPT}`, ...flags, "write a.txt"], { env: { DSH_HOME: home } })
      expect(r.code, r.stderr).toBe(2)
      expect(r.stderr).toContain(expected)
      expect(r.stderr.trim().split("\n")).toHaveLength(1)
      expect(sessionIds(home)).toEqual([])
    }
  }, 60_000)
})

describe("a project's rules", () => {
  it("a project's .dsh/config.toml [permissions] apply only when the project is trusted", async () => {
    const cwd = tempDir("dsh-perm-project-")
    mkdirSync(join(cwd, ".git"))
    mkdirSync(join(cwd, ".dsh"))
    writeFileSync(join(cwd, ".dsh", "config.toml"), "[permissions]\nallow = [\"Write(a.txt)\"]\n")
    const untrusted = await run("write a.txt", [], { cwd })
    expect(untrusted.json.result).toContain("Write(a.txt) needs approval (mode: default)")
    expect(untrusted.stderr).toContain(".dsh/config.toml: [permissions] ignored: the project is not trusted")
    expect(existsSync(join(cwd, "a.txt"))).toBe(false)
    const trusted = await run("write a.txt", ["--trust-project"], { cwd })
    expect(trusted.code, trusted.stderr).toBe(0)
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("x\n")
    expect(permissions(trusted.home, trusted.json.sessionId)).toMatchObject([{ decision: "allowed", via: "rule", rule: "allow: Write(a.txt)" }])
  }, 60_000)
})

describe("permissions across the tree", () => {
  it("a child cannot widen: its agent file lists Bash, the parent's deny still holds; the decision is in its log", async () => {
    const home = makeHome()
    mkdirSync(join(home, "agents"))
    writeFileSync(join(home, "agents", "pusher.md"), "---\ndescription: pushes\ntools: Bash\n---\nYou push.\n")
    const r = await run("delegate pusher git push origin main", ["--allow", "subagent", "--allow", "Bash", "--deny", "Bash(git push*)"], { home })
    expect(r.code, r.stderr).toBe(0)
    expect(r.json.result).toContain("Bash(git push origin main) is denied by the rule \"Bash(git push*)\"")
    expect(permissions(home, r.json.sessionId, "pusher-1")).toMatchObject([{ subject: "Bash(git push origin main)", decision: "denied", rule: "deny: Bash(git push*)" }])
    const log = await runDsh(["subagents", "log", "pusher-1", "--tools", "--session", r.json.sessionId], { env: { DSH_HOME: home } })
    expect(log.stdout).toContain("⚑ Bash(git push origin main) denied: deny: Bash(git push*)")
    const json = await runDsh(["subagents", "log", "pusher-1", "--json", "--session", r.json.sessionId], { env: { DSH_HOME: home } })
    expect((JSON.parse(json.stdout) as { records: Array<{ type: string }> }).records.filter((x) => x.type === "permission")).toHaveLength(1)
  }, 60_000)

  it("create_subagent cannot widen: a created agent with Bash is still under the parent's rules", async () => {
    const r = await run("create rm -rf victim", ["--allow", "subagent", "--allow", "Bash", "--deny", "Bash(rm *)"])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json.result).toContain("Bash(rm -rf victim) is denied by the rule \"Bash(rm *)\"")
    expect(permissions(r.home, r.json.sessionId, "wide-1")).toMatchObject([{ decision: "denied", rule: "deny: Bash(rm *)" }])
  }, 60_000)

  it("an sdk:dsh child's question goes to its parent, whose rules answer; the parent's deny narrows the child", async () => {
    const allowed = await run("delegate sdk:dsh echo from-the-child", ["--allow", "subagent", "--allow", "Bash(echo *)"])
    expect(allowed.code, allowed.stderr).toBe(0)
    expect(allowed.json.result).toContain("from-the-child")
    // The child asked (its own rules: default mode); its client, the parent, answered by rule.
    expect(permissions(allowed.home, allowed.json.sessionId, "sdk-dsh-1")).toMatchObject([
      { subject: "Bash(echo from-the-child)", decision: "allowed", via: "asked", by: "sdk-client" }
    ])
    const denied = await run("delegate sdk:dsh echo from-the-child", ["--yolo", "--deny", "Bash(echo *)"])
    expect(denied.json.result).toContain("Bash(echo from-the-child) is denied by the rule \"Bash(echo *)\"")
    expect(permissions(denied.home, denied.json.sessionId, "sdk-dsh-1")).toMatchObject([{ decision: "denied", via: "rule", rule: "deny: Bash(echo *)" }])
  }, 60_000)

  it("an ACP child's permission request is decided by rule from its kind and command, not its title", async () => {
    const agent = resolve(import.meta.dirname, "fixtures/asking-agent.mjs")
    const config = `[acp.agents.codex]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(agent)}]\n`
    const allowed = await run("delegate acp:codex git status --short", ["--allow", "subagent", "--allow", "Bash(git status*)"], { config })
    expect(allowed.code, allowed.stderr).toBe(0)
    expect(allowed.json.result).toContain("approved: git status --short")
    expect(permissions(allowed.home, allowed.json.sessionId, "acp-codex-1")).toMatchObject([
      { id: "call-1", subject: "Bash(git status --short)", decision: "allowed", via: "rule", rule: "allow: Bash(git status*)" }
    ])
    // No rule allows it and no one can be asked: denied, with the reason the child's model reads.
    const denied = await run("delegate acp:codex git push", ["--allow", "subagent", "--allow", "Bash(git status*)"], { config })
    expect(denied.json.result).toContain("rejected: git push (Bash(git push) needs approval (mode: default)")
    // A rule on the vendor's title ("echo") means nothing.
    const titled = await run("delegate acp:codex git push", ["--allow", "subagent", "--allow", "echo", "--allow", "Bash(echo*)"], { config })
    expect(titled.json.result).toContain("rejected: git push")
  }, 60_000)
})
