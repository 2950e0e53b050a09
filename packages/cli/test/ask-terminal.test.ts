import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { DSH, makeHome, tempDir } from "./support.ts"

// util-linux `script` gives dsh a pseudo-terminal: stdin, stdout and stderr are a TTY, as for a person.
const hasScript = spawnSync("script", ["--version"]).status === 0
if (!hasScript) console.log("skipping the terminal question tests: util-linux script is not installed")

const scriptFile = join(tempDir("dsh-tty-script-"), "script.json")
writeFileSync(scriptFile, JSON.stringify({
  rules: [
    { when: { lastUser: "^write (\\S+)", step: 0 }, reply: { toolCalls: [{ name: "Write", arguments: { path: "{{1}}", content: "x\n" } }] } },
    { when: { lastUser: "^twice (.+)$", step: 0 }, reply: { toolCalls: [{ name: "Bash", arguments: { command: "{{1}}" } }] } },
    { when: { lastUser: "^twice (.+)$", step: 1 }, reply: { toolCalls: [{ name: "Bash", arguments: { command: "{{1}}" } }] } },
    {
      when: { lastUser: "^two children$", step: 0 },
      reply: {
        toolCalls: [
          { name: "subagent", arguments: { agent: "runner", description: "one", prompt: "CHILD echo one" } },
          { name: "subagent", arguments: { agent: "runner", description: "two", prompt: "CHILD echo two" } }
        ]
      }
    },
    { when: { lastUser: "^CHILD (.+)$", step: 0 }, reply: { toolCalls: [{ name: "Bash", arguments: { command: "{{1}}" } }] } },
    { reply: { text: "done: {{toolResults}}" } }
  ]
}))

const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`

/** `dsh run PROMPT` on a pseudo-terminal: what it prints, and a way to type answers. */
const onTerminal = (prompt: string, home: string, cwd: string) => {
  const command = [DSH, "run", "--allow", "subagent", "--model", `scripted:${scriptFile}`, prompt].map(quote).join(" ")
  const child = spawn("script", ["-qfec", command, "/dev/null"], {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", DSH_HOME: home, TERM: "dumb" },
    stdio: ["pipe", "pipe", "pipe"]
  })
  let output = ""
  const waiting: Array<() => void> = []
  const seen = () => waiting.splice(0).forEach((w) => w())
  child.stdout.on("data", (c: Buffer) => {
    output += c.toString().replaceAll("\r", "")
    seen()
  })
  const exited = new Promise<number | null>((done) => child.on("close", (code) => {
    seen()
    done(code)
  }))
  const count = (text: string) => output.split(text).length - 1
  return {
    output: () => output,
    count,
    /** Resolves once `text` has appeared `times` times (fails if dsh exits first). */
    waitFor: (text: string, times = 1) =>
      new Promise<void>((done, fail) => {
        const check = () => {
          if (count(text) >= times) return done()
          if (child.exitCode !== null) return fail(new Error(`dsh exited before printing ${JSON.stringify(text)}:\n${output}`))
          waiting.push(check)
        }
        check()
      }),
    type: (line: string) => void child.stdin.write(`${line}\n`),
    exited: exited.then((code) => {
      child.stdin.end()
      return code
    })
  }
}

const onlySession = (home: string) => readdirSync(join(home, "sessions"))[0]!
const events = (file: string) => readFileSync(file, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Record<string, unknown>)

describe.skipIf(!hasScript)("questions on a terminal (a pseudo-terminal via script)", () => {
  it("names the agent and the call; 'n' denies and the model is told the user said no", async () => {
    const home = makeHome()
    const cwd = tempDir("dsh-tty-cwd-")
    const t = onTerminal("write a.txt", home, cwd)
    await t.waitFor("main wants to write: a.txt  (mode: default)")
    expect(t.output()).toContain("[y] allow once   [a] always, for this session   [n] deny")
    t.type("maybe")
    await t.waitFor("answer y (allow once), a (always, for this session) or n (deny)")
    t.type("n")
    expect(await t.exited).toBe(0)
    expect(t.output()).toContain("the user denied Write(a.txt)")
    expect(existsSync(join(cwd, "a.txt"))).toBe(false)
    expect(events(join(home, "sessions", onlySession(home), "wire.jsonl")).filter((e) => e.type === "permission")).toMatchObject([
      { subject: "Write(a.txt)", decision: "denied", via: "asked", rule: "mode: default", by: "user" }
    ])
  }, 60_000)

  it("'a' allows the same call for the rest of the session without asking again", async () => {
    const home = makeHome()
    const t = onTerminal("twice echo hi", home, tempDir("dsh-tty-cwd-"))
    await t.waitFor("main wants to run: echo hi")
    t.type("a")
    expect(await t.exited).toBe(0)
    expect(t.count("wants to run")).toBe(1)
    expect(t.count("hi\n[exit code 0]")).toBe(2)
    expect(events(join(home, "sessions", onlySession(home), "wire.jsonl")).filter((e) => e.type === "permission")).toMatchObject([
      { decision: "allowed", via: "asked", by: "user", remember: "session" },
      { decision: "allowed", via: "rule", rule: "session: Bash(echo hi)" }
    ])
  }, 60_000)

  it("concurrent children's questions come one at a time, each naming its child", async () => {
    const home = makeHome()
    mkdirSync(join(home, "agents"))
    writeFileSync(join(home, "agents", "runner.md"), "---\ndescription: runs commands\ntools: Bash\n---\nYou run commands.\n")
    const t = onTerminal("two children", home, tempDir("dsh-tty-cwd-"))
    await t.waitFor(" wants to run: echo ")
    // Both children have made their Bash call (it is on disk before it is decided): one question still.
    const wire = (handle: string) => join(home, "sessions", onlySession(home), "agents", handle, "wire.jsonl")
    const calledBash = (handle: string) => existsSync(wire(handle)) && events(wire(handle)).some((e) => e.type === "tool-call")
    while (!calledBash("runner-1") || !calledBash("runner-2")) await new Promise((r) => setTimeout(r, 20))
    expect(t.count(" wants to run: ")).toBe(1)
    const first = /(runner-\d) wants to run: (echo \w+)/.exec(t.output())!
    t.type("y")
    await t.waitFor(" wants to run: ", 2)
    const second = /(runner-\d) wants to run: (echo \w+)/g
    const both = [...t.output().matchAll(second)].map((m) => [m[1], m[2]])
    expect(both[0]).toEqual([first[1], first[2]])
    expect(both[1]![0]).not.toBe(first[1])
    // The first answer was printed before the second question.
    expect(t.output().indexOf("allowed once")).toBeLessThan(t.output().lastIndexOf(" wants to run: "))
    t.type("y")
    expect(await t.exited).toBe(0)
    expect(t.output()).toContain("one\n[exit code 0]")
    expect(t.output()).toContain("two\n[exit code 0]")
  }, 60_000)
})
