import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { Postgres } from "@dsh/testing-pg"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { firstUser, hostedBy, mentions, messages, readChildren, shardHolders, startRunner, step, stoppedAfterEach, until } from "./cluster-support.ts"
import { makeHome, runDsh, tempDir } from "./support.ts"

// One PostgreSQL for this file, started once; each test has a database of its own (the cluster's
// shard locks are advisory locks, which are per database, not per schema).
const pg = await Postgres.postgresForTests()
afterAll(() => pg?.stop())

const spawnCalls = (prompts: ReadonlyArray<string>, extra: Record<string, unknown> = {}): FakeOpenAIServer.FakeReply => ({
  toolCalls: prompts.map((prompt, i) => ({ name: "subagent", arguments: { description: `task ${i + 1}`, prompt, agent: "explore", ...extra } }))
})

// What every test started, stopped after it (only these processes and servers).
const { runners, servers } = stoppedAfterEach()

/** A database, a fake model, a home with `config`, and `count` runners on them. */
const cluster = async (respond: (r: FakeOpenAIServer.FakeRequest) => FakeOpenAIServer.FakeReply | Promise<FakeOpenAIServer.FakeReply>, config: string, count = 2) => {
  const url = await pg!.createDatabase()
  const server = await FakeOpenAIServer.startFakeOpenAIServer({ respond })
  servers.push(server)
  const home = makeHome(config)
  const env = { DSH_HOME: home, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" }
  const started = await Promise.all(Array.from({ length: count }, () => startRunner(url, env)))
  runners.push(...started)
  // Every runner holds some shards before the test goes on (a runner is ready before its share is handed to it).
  await until(async () => (await shardHolders(url)) === count, "every runner holding shards")
  const dsh = (args: ReadonlyArray<string>) => runDsh([...args, "--store", url], { env, cwd: tempDir() })
  return { url, server, env, runners: started, dsh }
}

const jsonOf = (stdout: string) => JSON.parse(stdout) as { sessionId: string; status: string; result: string; subagents: Array<{ name: string; status: string; provider: string }> }
const explore = (n: number) => Array.from({ length: n }, (_, i) => `explore-${i + 1}`)

describe.skipIf(pg === undefined)("children on a cluster of dsh runners (--cluster, PostgreSQL)", () => {
  it("a runner runs the hooks of its config for the children it hosts: PreToolUse exit 2 blocks a child's call", async () => {
    const guard = join(tempDir("dsh-hook-"), "guard.sh")
    writeFileSync(guard, "#!/bin/sh\necho 'no globbing on runners' >&2\nexit 2\n", { mode: 0o755 })
    const respond = (r: FakeOpenAIServer.FakeRequest): FakeOpenAIServer.FakeReply =>
      firstUser(r).startsWith("CHILD")
        ? step(r) === 0
          ? { toolCalls: [{ name: "Glob", arguments: { pattern: "*" } }] }
          : { text: `child read: ${messages(r).filter((m) => m.role === "tool").map((m) => m.content).join("")}` }
        : step(r) === 0
        ? spawnCalls(["CHILD look"])
        : { text: "all done" }
    const c = await cluster(respond, `[[hooks.PreToolUse]]\nmatcher = "Glob"\ncommand = ${JSON.stringify(guard)}\n`, 1)
    const run = await c.dsh(["run", "--cluster", "--model", "openai:any", "--output-format", "json", "PARENT look"])
    expect(run.code, run.stderr).toBe(0)
    const [child] = await readChildren(c.url, jsonOf(run.stdout).sessionId, ["explore-1"])
    expect(child!.records.filter((x) => x.type === "hook")).toMatchObject([{ event: "PreToolUse", outcome: "block", message: "no globbing on runners" }])
    expect(child!.records.some((x) => x.type === "tool-result" && x.output === "no globbing on runners")).toBe(true)
  }, 120_000)

  it("a child hosted on a runner keeps its agent file's hooks and its requester's subagentDefaults", async () => {
    const guard = join(tempDir("dsh-hook-"), "guard.sh")
    writeFileSync(guard, "#!/bin/sh\necho 'guarded agents do not glob' >&2\nexit 2\n", { mode: 0o755 })
    const tools = (r: FakeOpenAIServer.FakeRequest) => ((r.body as { tools?: ReadonlyArray<{ function: { name: string } }> }).tools ?? []).map((t) => t.function.name)
    const respond = (r: FakeOpenAIServer.FakeRequest): FakeOpenAIServer.FakeReply =>
      firstUser(r).startsWith("CHILD")
        ? step(r) === 0 ? { toolCalls: [{ name: "Glob", arguments: { pattern: "*" } }] } : { text: "child done" }
        : step(r) === 0
        ? spawnCalls(["CHILD look"], { agent: "guarded" })
        : { text: "all done" }
    const c = await cluster(respond, "", 1)
    const cwd = tempDir()
    mkdirSync(join(cwd, ".dsh", "agents"), { recursive: true })
    writeFileSync(join(cwd, ".dsh", "agents", "lead.md"), "---\ndescription: leads\nsubagentDefaults:\n  disallowedTools: [Bash]\n---\nYou lead.\n")
    writeFileSync(join(cwd, ".dsh", "agents", "guarded.md"), [
      "---",
      "description: looks around",
      "hooks:",
      "  PreToolUse:",
      "    - matcher: Glob",
      "      hooks:",
      "        - type: command",
      `          command: ${JSON.stringify(guard)}`,
      "---",
      "You look.",
      ""
    ].join("\n"))
    const run = await runDsh(["run", "--cluster", "--store", c.url, "--model", "openai:any", "--agent", "lead", "--allow", "subagent", "--output-format", "json", "PARENT look"], { env: c.env, cwd })
    expect(run.code, run.stderr).toBe(0)
    const [child] = await readChildren(c.url, jsonOf(run.stdout).sessionId, ["guarded-1"])
    expect(child!.records.filter((x) => x.type === "hook")).toMatchObject([{ event: "PreToolUse", outcome: "block", message: "guarded agents do not glob" }])
    const asked = c.server.requests.find((r) => firstUser(r).startsWith("CHILD"))!
    expect(tools(asked)).toContain("Glob")
    expect(tools(asked)).not.toContain("Bash")
  }, 120_000)

  it("delegates through two runners (each child's log names its runner), then continues a child on the other runner once its first one stopped", async () => {
    const respond = (r: FakeOpenAIServer.FakeRequest): FakeOpenAIServer.FakeReply =>
      firstUser(r).startsWith("CHILD")
        ? { text: mentions(r, "again") ? "continued here" : `done: ${firstUser(r)}` }
        : step(r) === 0
        ? spawnCalls(Array.from({ length: 12 }, (_, i) => `CHILD ${i + 1}`))
        : { text: "all done" }
    const c = await cluster(respond, "[limits]\nmax_concurrent = 12\n")
    const run = await c.dsh(["run", "--cluster", "--model", "openai:any", "--output-format", "json", "PARENT fan out"])
    expect(run.stderr).toBe("")
    expect(run.code).toBe(0)
    const summary = jsonOf(run.stdout)
    expect(summary.result).toBe("all done")
    expect(summary.subagents.map((s) => [s.provider, s.status])).toEqual(Array(12).fill(["cluster", "completed"]))

    const children = await readChildren(c.url, summary.sessionId, explore(12))
    const hosts = children.map((ch) => hostedBy(ch.records))
    expect(hosts.every((h) => h.length === 1)).toBe(true)
    expect(new Set(hosts.flat()), "children ran on both runners").toEqual(new Set(c.runners.map((r) => r.address)))

    // The runner that ran one child stops (SIGTERM: its shards go to the other); the child continues there.
    const [first, other] = c.runners[0]!.address === hosts[0]![0] ? [c.runners[0]!, c.runners[1]!] : [c.runners[1]!, c.runners[0]!]
    first.kill("SIGTERM")
    const exit = await first.exited
    expect(exit.code).toBe(0)
    const sent = await c.dsh(["subagents", "send", "explore-1", "CHILD again", "--session", summary.sessionId, "--cluster"])
    expect(sent.stderr).toBe("")
    expect(sent.stdout).toBe("continued here\n")
    const [after] = await readChildren(c.url, summary.sessionId, ["explore-1"])
    expect(hostedBy(after!.records)).toEqual([first.address, other.address])
    const log = await c.dsh(["subagents", "log", "explore-1", "--session", summary.sessionId])
    expect(log.stdout).toContain("continued here")
  }, 180_000)

  // Shards are placed by a hash of the child's id: with 16 grandchildren, all of them on the child's
  // runner has a chance of 2^-16, so the stop crosses runners in practice every time.
  const GRANDCHILDREN = 16
  it("a stop reaches a grandchild on another runner (max_depth 2), from another process", async () => {
    const respond = (r: FakeOpenAIServer.FakeRequest): FakeOpenAIServer.FakeReply =>
      firstUser(r).startsWith("GRAND")
        ? { hang: true }
        : firstUser(r).startsWith("CHILD")
        ? step(r) === 0 ? spawnCalls(Array.from({ length: GRANDCHILDREN }, (_, i) => `GRAND ${i + 1}`)) : { text: "child ended" }
        : step(r) === 0
        ? spawnCalls(["CHILD spawn grandchildren"], { agent: "coder" })
        : { text: "parent ended" }
    const c = await cluster(respond, `[limits]\nmax_concurrent = ${GRANDCHILDREN + 4}\nmax_depth = 2\n`)
    const running = c.dsh(["run", "--cluster", "--allow", "subagent", "--model", "openai:any", "--output-format", "json", "PARENT delegate"])
    await until(() => c.server.requests.filter((r) => firstUser(r).startsWith("GRAND")).length === GRANDCHILDREN, "every grandchild asking the model")
    const listed = await c.dsh(["sessions", "list", "--json"])
    const sessionId = (JSON.parse(listed.stdout) as { sessions: Array<{ id: string }> }).sessions[0]!.id
    const handles = ["coder-1", ...explore(GRANDCHILDREN)]
    const before = await readChildren(c.url, sessionId, handles)
    const childRunner = hostedBy(before[0]!.records)[0]
    expect(before.slice(1).some((g) => hostedBy(g.records)[0] !== childRunner), "a grandchild runs on the other runner").toBe(true)

    const stop = await c.dsh(["subagents", "stop", "coder-1", "--session", sessionId])
    expect(stop.stderr).toBe("")
    expect(stop.code).toBe(0)
    await c.server.waitForAborts(GRANDCHILDREN)
    const run = await running
    expect(run.code).toBe(0)
    const list = await c.dsh(["subagents", "list", "--session", sessionId, "--json"])
    const statuses = (JSON.parse(list.stdout) as { subagents: Array<{ name: string; status: string }> }).subagents
    expect(statuses.map((s) => s.status)).toEqual(Array(GRANDCHILDREN + 1).fill("cancelled"))
  }, 180_000)

  it("kill -9 of the runner running a child: the child is resumed from its transcript on the other runner, announced once", async () => {
    let abortedWhenResumed: number | undefined
    let server: FakeOpenAIServer.FakeServer | undefined
    const respond = (r: FakeOpenAIServer.FakeRequest): FakeOpenAIServer.FakeReply => {
      if (firstUser(r).startsWith("CHILD")) {
        if (!mentions(r, "The machine that ran you stopped")) return { text: "half way there", hang: true }
        abortedWhenResumed ??= server!.aborted
        return { text: "finished after the move" }
      }
      if (step(r) === 0) return spawnCalls(["CHILD long task"], { background: true })
      return mentions(r, "[subagent announcement]") ? { text: "parent got it" } : { text: "waiting for the child" }
    }
    const c = await cluster(respond, "[limits]\nmax_concurrent = 4\n")
    server = c.server
    const running = c.dsh(["run", "--cluster", "--model", "openai:any", "--output-format", "json", "PARENT delegate in background"])
    await until(() => c.server.requests.some((r) => firstUser(r).startsWith("CHILD")), "the child asking the model")
    const listed = await c.dsh(["sessions", "list", "--json"])
    const sessionId = (JSON.parse(listed.stdout) as { sessions: Array<{ id: string }> }).sessions[0]!.id
    const [child] = await readChildren(c.url, sessionId, ["explore-1"])
    const victim = c.runners.find((r) => r.address === hostedBy(child!.records)[0])!
    victim.kill("SIGKILL")
    expect((await victim.exited).signal).toBe("SIGKILL")

    const run = await running
    expect(run.stderr).toBe("")
    expect(run.code).toBe(0)
    const summary = jsonOf(run.stdout)
    expect(summary.result).toBe("parent got it")
    expect(summary.subagents).toMatchObject([{ name: "explore-1", status: "completed" }])
    expect(abortedWhenResumed, "the first run was cut off before the second began").toBeGreaterThanOrEqual(1)
    const [after] = await readChildren(c.url, sessionId, ["explore-1"])
    const survivor = c.runners.find((r) => r !== victim)!
    expect(hostedBy(after!.records)).toEqual([victim.address, survivor.address])
    expect(after!.meta?.status).toBe("completed")
    // Exactly one announcement reached the parent.
    const last = c.server.requests.filter((r) => !firstUser(r).startsWith("CHILD")).at(-1)!
    expect(messages(last).filter((m) => (m.content ?? "").includes("[subagent announcement]"))).toHaveLength(1)
    expect(messages(last).some((m) => (m.content ?? "").includes("finished after the move"))).toBe(true)
  }, 180_000)

  it("two parents share a global lane of 4: never more than 4 children run at once across the cluster", async () => {
    const respond = (r: FakeOpenAIServer.FakeRequest): FakeOpenAIServer.FakeReply =>
      firstUser(r).startsWith("CHILD")
        ? { text: "ok", delayMs: 300 }
        : step(r) === 0
        ? spawnCalls(Array.from({ length: 6 }, (_, i) => `CHILD ${i + 1}`))
        : { text: "done" }
    const c = await cluster(respond, "[limits]\nmax_concurrent = 4\n")
    const runs = await Promise.all([1, 2].map((n) => c.dsh(["run", "--cluster", "--model", "openai:any", "--output-format", "json", `PARENT ${n}`])))
    for (const run of runs) {
      expect(run.stderr).toBe("")
      expect(run.code).toBe(0)
    }
    const children = (await Promise.all(runs.map((run) => readChildren(c.url, jsonOf(run.stdout).sessionId, explore(6))))).flat()
    const edges = children.flatMap(({ meta }) => [
      { at: Date.parse(meta!.startedAt), delta: 1 },
      { at: Date.parse(meta!.endedAt!), delta: -1 }
    ]).sort((a, b) => a.at - b.at || a.delta - b.delta)
    let now = 0
    let most = 0
    for (const e of edges) most = Math.max(most, (now += e.delta))
    expect(most).toBeLessThanOrEqual(4)
    expect(most, "children of both parents ran side by side").toBeGreaterThan(1)
  }, 180_000)

  it("a child on a runner is decided by the parent's rules: a --deny given to dsh run --cluster holds there", async () => {
    const respond = (r: FakeOpenAIServer.FakeRequest): FakeOpenAIServer.FakeReply =>
      firstUser(r).startsWith("CHILD")
        ? step(r) === 0 ? { toolCalls: [{ name: "Bash", arguments: { command: "echo from the runner" } }] } : { text: "child done" }
        : step(r) === 0
        ? spawnCalls(["CHILD run echo"], { agent: "coder" })
        : { text: "parent done" }
    // The runners' own rules allow everything; the parent's flag denies the command.
    const c = await cluster(respond, "[permissions]\nmode = \"bypass\"\n")
    const run = await c.dsh(["run", "--cluster", "--deny", "Bash(echo *)", "--model", "openai:any", "--output-format", "json", "PARENT"])
    expect(run.stderr).toBe("")
    expect(run.code).toBe(0)
    const [child] = await readChildren(c.url, jsonOf(run.stdout).sessionId, ["coder-1"])
    expect(hostedBy(child!.records)).toHaveLength(1)
    expect(child!.records.find((r) => r.type === "permission")).toMatchObject({ subject: "Bash(echo from the runner)", decision: "denied", rule: "deny: Bash(echo *)" })
    const result = child!.records.find((r) => r.type === "tool-result") as { output?: string; isError?: boolean } | undefined
    expect(result?.isError).toBe(true)
    expect(result?.output).toContain("denied")
  }, 180_000)
})

describe("--cluster and dsh runner without PostgreSQL", () => {
  it("are usage errors (exit 2, one line)", async () => {
    const home = makeHome()
    const run = await runDsh(["run", "--cluster", "hi"], { env: { DSH_HOME: home } })
    expect(run.code).toBe(2)
    expect(run.stderr).toBe(`dsh: --cluster needs a PostgreSQL store (--store postgres://…, DSH_STORE or store = in config.toml); sessions are in ${home}\n`)
    const runner = await runDsh(["runner", "--store", tempDir()], { env: { DSH_HOME: home } })
    expect(runner.code).toBe(2)
    expect(runner.stderr).toMatch(/^dsh: runner needs a PostgreSQL store .*; --store is the directory \S+\n$/)
    const configured = makeHome("[cluster]\nenabled = \"yes\"\n")
    const bad = await runDsh(["run", "hi"], { env: { DSH_HOME: configured } })
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain("[cluster] enabled")
  })
})
