import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { DSH, makeHome, runDsh, tempDir } from "./support.ts"

/**
 * The operator's live view, through a real pseudo-terminal (util-linux `script`): `dsh run` on a
 * terminal draws the tree of its agents in place and leaves a summary; `dsh subagents watch`
 * draws the same for a session another process runs. The children are held at the model until
 * the test has seen a frame with all of them running, so every wait is on what the screen shows.
 */
const SCRIPT = "/usr/bin/script"

interface Msg {
  readonly role: string
  readonly content: string | null
}
const messages = (r: FakeOpenAIServer.FakeRequest) => (r.body as { messages: ReadonlyArray<Msg> }).messages
const isChild = (r: FakeOpenAIServer.FakeRequest) => (messages(r)[0]?.content ?? "").includes("codebase exploration subagent")
const steps = (r: FakeOpenAIServer.FakeRequest) => messages(r).filter((m) => m.role === "assistant").length
const explore = (n: number) => ({ name: "subagent", arguments: { agent: "explore", description: `part ${n}`, prompt: `look at part ${n}` } })

const servers: Array<FakeOpenAIServer.FakeServer> = []
const launched: Array<ChildProcess> = []
afterEach(async () => {
  for (const p of launched.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL")
  for (const s of servers.splice(0)) await s.close()
})

/** A model whose three explorers each search once, then wait for `release` before answering. */
const heldModel = async () => {
  let release: () => void = () => {}
  const released = new Promise<void>((resolve) => (release = resolve))
  const server = await FakeOpenAIServer.startFakeOpenAIServer({
    respond: async (r): Promise<FakeOpenAIServer.FakeReply> => {
      if (isChild(r)) {
        if (steps(r) === 0) return { toolCalls: [{ name: "Glob", arguments: { pattern: "*.md" } }], usage: { input: 50, output: 5 } }
        await released
        return { text: "part looked at", usage: { input: 80, output: 8 } }
      }
      return steps(r) === 0 ? { toolCalls: [explore(1), explore(2), explore(3)], usage: { input: 100, output: 10 } } : { text: "all three done", usage: { input: 200, output: 4 } }
    }
  })
  servers.push(server)
  return { server, release }
}

/** Runs `command` on a pseudo-terminal; the screen's bytes accumulate in `output()`. */
const onTerminal = (command: string, env: Record<string, string>, cwd: string) => {
  const child = spawn(SCRIPT, ["-qfec", command, "/dev/null"], { cwd, env: { PATH: process.env.PATH ?? "", TERM: "xterm-256color", ...env }, stdio: ["pipe", "pipe", "pipe"] })
  launched.push(child)
  let output = ""
  const listeners = new Set<() => void>()
  child.stdout.on("data", (c: Buffer) => {
    output += c.toString()
    for (const l of listeners) l()
  })
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
  /** Resolves once `predicate` holds for the frames drawn so far (checked as output arrives). */
  const waitFor = (what: string, predicate: (frames: ReadonlyArray<string>) => boolean) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (predicate(frames(output))) {
          listeners.delete(check)
          resolve()
        }
      }
      listeners.add(check)
      child.once("close", () => (listeners.has(check) ? reject(new Error(`the terminal closed before ${what}:\n${plain(output)}`)) : undefined))
      check()
    })
  /** Keys typed at the terminal (Ctrl-C is "\u0003": the terminal sends SIGINT to dsh). */
  const type = (keys: string) => void child.stdin.write(keys)
  return { child, exited, output: () => output, waitFor, type }
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g
const plain = (text: string) => text.replace(ANSI, "").replace(/\r/g, "")
/** Every frame drawn: each starts by clearing what is below the cursor (ESC [ J). */
const frames = (output: string): ReadonlyArray<string> => output.split("\u001b[J").slice(1).map(plain)
const line = (frame: string, handle: string) => frame.split("\n").find((l) => new RegExp(`\\b${handle} \\(`).test(l)) ?? ""
const allRunning = (frame: string) => ["explore-1", "explore-2", "explore-3"].every((h) => /\brunning\b/.test(line(frame, h)))

const envOf = (home: string, server: FakeOpenAIServer.FakeServer) => ({ DSH_HOME: home, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" })

describe.skipIf(!existsSync(SCRIPT))("the live tree on a terminal", () => {
  it("dsh run draws every child, updates the frame in place, and leaves the final tree with a summary", async () => {
    const { server, release } = await heldModel()
    const cwd = tempDir("dsh-cwd-")
    const term = onTerminal(`${DSH} run --model openai:fake "look at the three parts"`, envOf(makeHome(), server), cwd)
    // A frame with all three children running, each showing what it is doing.
    await term.waitFor("all children running", (fs) => fs.some(allRunning))
    release()
    expect(await term.exited).toBe(0)
    const all = frames(term.output())
    const first = all.findIndex(allRunning)
    const last = all.at(-1)!
    expect(all.length, "the tree was redrawn, not printed once").toBeGreaterThan(2)
    expect(line(all[first]!, "main")).toMatch(/^main \(agent · openai:fake\)\s+running/)
    for (const h of ["explore-1", "explore-2", "explore-3"]) {
      expect(line(all[first]!, h)).toMatch(new RegExp(`^[├└]─ ${h} \\(explore · spawn\\)\\s+running\\s+\\S+\\s+[\\d,]+ tok`))
      expect(line(last, h)).toMatch(/completed\s+\S+\s+143 tok$/)
    }
    // Redrawn in place: each later frame first moves the cursor back up over the previous one.
    expect(term.output()).toMatch(/\r\u001b\[\d+A\u001b\[J/)
    const screen = plain(term.output())
    expect(screen).toMatch(/4 agents: 4 completed · 743 tokens · \S+\n/)
    expect(screen.trimEnd().endsWith("all three done")).toBe(true)
    // The cursor is hidden while drawing and shown again at the end.
    expect(term.output().indexOf("\u001b[?25l")).toBeLessThan(term.output().lastIndexOf("\u001b[?25h"))
  }, 60_000)

  it("Ctrl-C stops the run: the last frame shows every child cancelled and the cursor is shown again", async () => {
    const { server } = await heldModel()
    // `exec`: the shell `script` starts makes way for dsh, so the exit code is dsh's own.
    const term = onTerminal(`exec ${DSH} run --model openai:fake "look at the three parts"`, envOf(makeHome(), server), tempDir("dsh-cwd-"))
    await term.waitFor("all children running", (fs) => fs.some(allRunning))
    term.type("\u0003")
    expect(await term.exited, "a cancelled run is exit 1").toBe(1)
    const last = frames(term.output()).at(-1)!
    for (const h of ["explore-1", "explore-2", "explore-3"]) expect(line(last, h)).toMatch(/\bcancelled\b/)
    expect(plain(term.output())).toMatch(/4 agents: 4 cancelled · /)
    const out = term.output()
    expect(out.lastIndexOf("\u001b[?25h"), "the cursor is restored after the last frame").toBeGreaterThan(out.lastIndexOf("\u001b[J"))
    expect(plain(out)).toContain("dsh: run cancelled")
  }, 60_000)

  it("without a terminal, dsh run prints what it always did: the result alone", async () => {
    const { server, release } = await heldModel()
    release()
    const r = await runDsh(["run", "--model", "openai:fake", "look at the three parts"], { env: envOf(makeHome(), server), cwd: tempDir("dsh-cwd-") })
    expect(r.code).toBe(0)
    expect(r.stdout).toBe("all three done\n")
  }, 60_000)

  it("dsh subagents watch draws the tree of a session another process runs, and ends when it is over", async () => {
    const { server, release } = await heldModel()
    const home = makeHome()
    const cwd = tempDir("dsh-cwd-")
    const run = spawn(DSH, ["run", "--model", "openai:fake", "--output-format", "json", "look at the three parts"], { cwd, env: { PATH: process.env.PATH ?? "", ...envOf(home, server) }, stdio: ["ignore", "pipe", "pipe"] })
    launched.push(run)
    let out = ""
    run.stdout.on("data", (c: Buffer) => (out += c.toString()))
    const ran = new Promise<number | null>((resolve) => run.on("close", (code) => resolve(code)))
    // The three children have asked the model for their second step: they are all running.
    while (server.requests.filter((r) => isChild(r) && steps(r) === 1).length < 3) await new Promise((r) => setTimeout(r, 25))
    const id = readdirSync(join(home, "sessions"))[0]!
    const watch = onTerminal(`${DSH} subagents watch --session ${id}`, { DSH_HOME: home }, cwd)
    await watch.waitFor("all children running", (fs) => fs.some(allRunning))
    release()
    expect(await ran).toBe(0)
    expect(await watch.exited, "the watch ends by itself once the run is over").toBe(0)
    const last = frames(watch.output()).at(-1)!
    for (const h of ["explore-1", "explore-2", "explore-3"]) expect(line(last, h)).toMatch(/completed/)
    expect(plain(watch.output())).toMatch(/4 agents: 4 completed/)
    expect(JSON.parse(out)).toMatchObject({ status: "completed", sessionId: id })

    // Without a terminal: a line per status change, then the tree; at once, since nobody runs it now.
    const plainWatch = await runDsh(["subagents", "watch", "--session", id], { env: { DSH_HOME: home } })
    expect(plainWatch.code).toBe(0)
    expect(plainWatch.stdout).toContain("explore-2 completed\n")
    expect(plainWatch.stdout).toMatch(/└─ explore-\d \(explore · spawn\)\s+completed/)
    expect(plainWatch.stdout).not.toMatch(ANSI)
  }, 60_000)
})
