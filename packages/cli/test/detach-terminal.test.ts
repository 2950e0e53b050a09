import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { describe, expect, it } from "vitest"
import { DSH, makeHome, tempDir } from "./support.ts"

// util-linux `script` gives dsh a pseudo-terminal, as ask-terminal.test.ts does: keys typed reach it raw.
const hasScript = spawnSync("script", ["--version"]).status === 0
if (!hasScript) console.log("skipping the Ctrl+B tests: util-linux script is not installed")

const scriptFile = join(tempDir("dsh-detach-script-"), "script.json")
writeFileSync(scriptFile, JSON.stringify({
  rules: [
    // the child: waits for the test's file, then answers
    { when: { lastUser: "^SLOW", step: 0 }, reply: { toolCalls: [{ name: "Bash", arguments: { command: "while [ ! -e go ]; do sleep 0.02; done; echo released" } }] } },
    { when: { lastUser: "^SLOW" }, reply: { text: "child says {{lastTool|firstLine}}" } },
    // the lead
    { when: { lastUser: "subagent announcement" }, reply: { text: "lead heard: {{lastUser|firstLine}}" } },
    { when: { lastUser: "^delegate", step: 0 }, reply: { toolCalls: [{ name: "subagent", arguments: { agent: "runner", description: "slow", prompt: "SLOW work" } }] } },
    { when: { lastTool: "accepted" }, reply: { text: "lead goes on without it" } },
    { reply: { text: "lead waited: {{lastTool|firstLine}}" } }
  ]
}))

const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`
const events = (file: string) =>
  existsSync(file) ? readFileSync(file, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Record<string, any>) : []

/** Polled, not timed: until `check` holds or dsh has exited. */
const until = async (check: () => boolean, exited: () => boolean) => {
  while (!check()) {
    if (exited()) throw new Error("dsh exited first")
    await sleep(20)
  }
}

/** `dsh run "delegate it"` on a pseudo-terminal, with its home, cwd, output and records. */
const onTerminal = () => {
  const home = makeHome()
  const cwd = tempDir("dsh-detach-cwd-")
  mkdirSync(join(home, "agents"))
  writeFileSync(join(home, "agents", "runner.md"), "---\ndescription: runs commands\ntools: Bash\n---\nYou run commands.\n")
  const command = [DSH, "run", "--allow", "subagent", "--allow", "Bash", "--model", `scripted:${scriptFile}`, "delegate it"].map(quote).join(" ")
  const child = spawn("script", ["-qfec", command, "/dev/null"], {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", DSH_HOME: home, TERM: "dumb", DSH_RESIDENT: "0" },
    stdio: ["pipe", "pipe", "pipe"]
  })
  let output = ""
  child.stdout.on("data", (c: Buffer) => void (output += c.toString().replaceAll("\r", "")))
  const exited = new Promise<number | null>((done) => child.on("close", done))
  const gone = () => child.exitCode !== null
  const sessionDir = () => (existsSync(join(home, "sessions")) ? join(home, "sessions", readdirSync(join(home, "sessions"))[0] ?? "none") : "none")
  const wire = (handle?: string) => join(sessionDir(), ...(handle === undefined ? [] : ["agents", handle]), "wire.jsonl")

  return { home, cwd, child, output: () => output, exited, gone, wire }
}

describe.skipIf(!hasScript)("Ctrl+B on dsh run's terminal", () => {
  it("moves the running foreground child to the background: the lead goes on, then hears its outcome once", async () => {
    const { cwd, child, output, exited, gone, wire } = onTerminal()
    // The child is inside its Bash call (on disk before it runs): it is running in the foreground.
    await until(() => events(wire("runner-1")).some((e) => e.type === "tool-call"), gone)
    child.stdin.write("\x02")
    await until(() => output().includes("dsh: moved to the background: runner-1"), gone)
    // The lead's call returned accepted and its turn went on while the child still waits.
    await until(() => events(wire()).some((e) => e.type === "message" && e.message.content === "lead goes on without it"), gone)
    const toolResult = events(wire()).find((e) => e.type === "message" && e.message.role === "tool")
    expect(JSON.parse(toolResult!.message.content)).toMatchObject({ status: "accepted", handle: "runner-1" })
    writeFileSync(join(cwd, "go"), "")
    expect(await exited).toBe(0)
    child.stdin.end()
    expect(output()).toContain("lead heard: [subagent announcement]")
    const announced = events(wire()).filter((e) => e.type === "message" && e.message.role === "user" && e.message.content.includes("[subagent announcement]"))
    expect(announced).toHaveLength(1)
    expect(announced[0]!.message.content).toContain("child says released")
  }, 60_000)

  it("Ctrl+C, which raw mode no longer turns into a signal, still cancels the run", async () => {
    const { child, output, exited, gone, wire } = onTerminal()
    await until(() => events(wire("runner-1")).some((e) => e.type === "tool-call"), gone)
    child.stdin.write("\x03")
    expect(await exited).toBe(1)
    child.stdin.end()
    expect(output()).toContain("run cancelled")
    expect(events(wire("runner-1")).at(-1)).toMatchObject({ type: "turn-end", status: "cancelled" })
  }, 60_000)
})
