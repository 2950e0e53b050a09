import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:net"
import { homedir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeHome, runDsh, tempDir } from "./support.ts"

// Whether bubblewrap can create our sandbox here (it may be installed yet refused in a container).
const bwrap = spawnSync("bwrap", ["--die-with-parent", "--unshare-pid", "--as-pid-1", "--cap-drop", "ALL", "--unshare-net", "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--", "true"])
const works = bwrap.status === 0
if (!works) console.log(`skipping the dsh sandbox tests: bwrap ${bwrap.error !== undefined ? "is not installed" : `does not work here (${bwrap.stderr.toString().trim()})`}`)

const script = join(tempDir("dsh-sbx-script-"), "script.json")
writeFileSync(script, JSON.stringify({
  rules: [
    { when: { lastUser: "^delegate (\\S+) (.+)$", step: 0 }, reply: { toolCalls: [{ name: "subagent", arguments: { agent: "{{1}}", description: "probe", prompt: "CHILD {{2}}" } }] } },
    { when: { lastUser: "^CHILD (.+)$", step: 0 }, reply: { toolCalls: [{ name: "Bash", arguments: { command: "{{1}}" } }] } },
    { reply: { text: "result: {{lastTool}}" } }
  ]
}))

let server: Server
let port = 0
beforeAll(async () => {
  // A client that goes away mid-answer (a killed child) resets its socket: not this test's concern.
  server = createServer((socket) => socket.on("error", () => undefined).end("hello\n"))
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done))
  port = (server.address() as { port: number }).port
})
afterAll(() => server.close())

/**
 * What a child's Bash tries: read its parent's (and grandparent's) environment, write outside
 * and inside its working directory, and connect to a server on 127.0.0.1.
 */
const probe = (outside: string) =>
  [
    "GP=$(awk '/^PPid/{print $2}' /proc/$PPID/status 2>/dev/null)",
    "echo \"secrets=$(cat /proc/$PPID/environ /proc/${GP:-0}/environ 2>/dev/null | tr '\\0' '\\n' | grep -c DSH_TEST_SECRET)\"",
    `(echo x > ${outside}/escape.txt) 2>/dev/null && echo wrote-outside`,
    "echo y > inside.txt && echo wrote-inside",
    `(exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null && echo connected || echo no-connection`
  ].join("; ")

const runProbe = async (agent: string, sandbox: string) => {
  const home = makeHome(`[sandbox]\nmode = "${sandbox}"\n`)
  mkdirSync(join(home, "agents"))
  writeFileSync(join(home, "agents", "runner.md"), "---\ndescription: runs commands\ntools: Bash\n---\nYou run commands.\n")
  const cwd = tempDir("dsh-sbx-cwd-")
  // Outside /tmp, which the sandbox replaces with a private one: the write meets the read-only root.
  const outside = mkdtempSync(join(existsSync("/var/tmp") ? "/var/tmp" : homedir(), "dsh-sbx-outside-"))
  try {
    const r = await runDsh(["run", "--model", `scripted:${script}`, "--output-format", "json", "--yolo", `delegate ${agent} ${probe(outside)}`], {
      cwd,
      // dsh in its own process (and so its dsh children): the probe reads its ancestors'
      // /proc/<pid>/environ, and a resident's spare has none of its caller's variables there.
      env: { DSH_HOME: home, DSH_TEST_SECRET: "hunter2", DSH_RESIDENT: "0" }
    })
    expect(r.code, r.stderr).toBe(0)
    const result = (JSON.parse(r.stdout) as { result: string }).result
    return { result, escaped: existsSync(join(outside, "escape.txt")), inside: existsSync(join(cwd, "inside.txt")) }
  } finally {
    rmSync(outside, { recursive: true, force: true })
  }
}

describe.skipIf(!works)("Bash of every agent under bubblewrap (real bwrap, as root)", () => {
  for (const agent of ["runner", "sdk:dsh"]) {
    it(`${agent}: no ancestor's environment, no write outside the working directory, no network; writing inside works`, async () => {
      const confined = await runProbe(agent, "on")
      expect(confined.result).toContain("secrets=0")
      expect(confined.result).not.toContain("wrote-outside")
      expect(confined.escaped).toBe(false)
      expect(confined.result).toContain("wrote-inside")
      expect(confined.inside).toBe(true)
      expect(confined.result).toContain("no-connection")
      // The same command unconfined reaches all three: the sandbox, not file permissions, stopped it.
      const open = await runProbe(agent, "off")
      expect(open.result).toMatch(/secrets=[1-9]/)
      expect(open.escaped).toBe(true)
      expect(open.result).toContain("connected")
    }, 60_000)
  }
})

describe.skipIf(!works)("a vendor ACP agent with sandbox = true", () => {
  it("runs inside the sandbox itself (PID 1 of its own namespace); without it, it does not", async () => {
    const agent = join(import.meta.dirname, "fixtures", "asking-agent.mjs")
    const pids: Record<string, string> = {}
    for (const sandbox of [true, false]) {
      const config = `[sandbox]\nmode = "on"\n[acp.agents.boxed]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(agent)}]\nsandbox = ${sandbox}\n`
      const r = await runDsh(["run", "--allow", "subagent", "--model", `scripted:${script}`, "--output-format", "json", "delegate acp:boxed pid"], { cwd: tempDir("dsh-sbx-acp-"), env: { DSH_HOME: makeHome(config) } })
      expect(r.code, r.stderr).toBe(0)
      pids[String(sandbox)] = /pid (\d+)/.exec((JSON.parse(r.stdout) as { result: string }).result)?.[1] ?? "none"
    }
    expect(pids).toMatchObject({ true: "1" })
    expect(pids.false).not.toBe("1")
    expect(pids.false).not.toBe("none")
  }, 60_000)
})

describe("dsh doctor", () => {
  it("says whether bwrap works, and what the config holds", async () => {
    const home = makeHome("[sandbox]\nmode = \"on\"\nnetwork = true\n[permissions]\ndeny = [\"Bash(rm *)\"]\n")
    const text = await runDsh(["doctor"], { env: { DSH_HOME: home } })
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toContain(`DSH_HOME    ${home}`)
    expect(text.stdout).toContain("sandbox     mode on, network true")
    expect(text.stdout).toContain("deny Bash(rm *)")
    expect(text.stdout).toMatch(works ? /bwrap .*works — Bash runs confined/ : /bwrap .*(not found|cannot create)/)
    const json = await runDsh(["sandbox", "check", "--json"], { env: { DSH_HOME: home } })
    const report = JSON.parse(json.stdout) as { bwrap: { works: boolean; version?: string }; node: { version: string } }
    expect(report.bwrap.works).toBe(works)
    expect(report.node.version).toBe(process.version)
    const broken = await runDsh(["doctor"], { env: { DSH_HOME: makeHome("[sandbox]\nnetwork = \"yes\"\n") } })
    expect(broken.code).toBe(0)
    expect(broken.stdout).toContain("[sandbox] network must be true or false")
    expect(readFileSync(join(home, "config.toml"), "utf8")).toContain("network = true")
  }, 60_000)
})
