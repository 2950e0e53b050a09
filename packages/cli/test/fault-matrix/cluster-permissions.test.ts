import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { Postgres } from "@dsh/testing-pg"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { firstUser, hostedBy, readChildren, shardHolders, startRunner, step, stoppedAfterEach, until } from "../cluster-support.ts"
import { makeHome, runDsh, tempDir } from "../support.ts"

/**
 * Fault matrix 5(e): every permission rule of `dsh run --cluster` (allow and `--yolo`
 * included) reaches a child on a runner exactly as it reaches an in-process child; the
 * runner's own rules only narrow (its deny still wins). The runner and the parent have
 * homes of their own, so which rules decided is unambiguous.
 */
const pg = await Postgres.postgresForTests()
afterAll(() => pg?.stop())


// The parent delegates to coder; the child runs one command (asked for in default mode), then ends.
const respond = (r: FakeOpenAIServer.FakeRequest): FakeOpenAIServer.FakeReply =>
  firstUser(r).startsWith("CHILD")
    ? step(r) === 0 ? { toolCalls: [{ name: "Bash", arguments: { command: "echo from the runner" } }] } : { text: "child done" }
    : step(r) === 0
    ? { toolCalls: [{ name: "subagent", arguments: { description: "run echo", prompt: "CHILD run echo", agent: "coder" } }] }
    : { text: "parent done" }

const { runners, servers } = stoppedAfterEach()

/** A database, a fake model, one runner with `runnerConfig` as its config.toml, and a parent home of its own. */
const cluster = async (runnerConfig: string) => {
  const url = await pg!.createDatabase()
  const server = await FakeOpenAIServer.startFakeOpenAIServer({ respond })
  servers.push(server)
  const model = { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test", DSH_RESIDENT: "0" }
  runners.push(await startRunner(url, { ...model, DSH_HOME: makeHome(runnerConfig) }))
  await until(async () => (await shardHolders(url)) === 1, "the runner holding shards")
  const parentEnv = { ...model, DSH_HOME: makeHome() }
  const cwd = tempDir("dsh-cluster-perm-cwd-")
  const run = async (flags: ReadonlyArray<string>) => {
    const r = await runDsh(["run", "-p", "--cluster", "--allow", "subagent", ...flags, "--model", "openai:any", "--output-format", "json", "PARENT", "--store", url], { env: parentEnv, cwd })
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    const [child] = await readChildren(url, (JSON.parse(r.stdout) as { sessionId: string }).sessionId, ["coder-1"])
    expect(hostedBy(child!.records), "the child ran on the runner").toHaveLength(1)
    const permission = child!.records.find((x) => x.type === "permission")
    const result = child!.records.find((x) => x.type === "tool-result") as { output?: string; isError?: boolean } | undefined
    return { permission, result }
  }
  return { run, cwd }
}

describe.skipIf(pg === undefined)("5(e): every permission rule reaches cluster children as it reaches in-process ones", () => {
  it("--allow on dsh run --cluster allows an ask-by-default command on a runner with no rules of its own", async () => {
    const c = await cluster("")
    const { permission, result } = await c.run(["--allow", "Bash(echo *)"])
    expect(permission).toMatchObject({ subject: "Bash(echo from the runner)", decision: "allowed", rule: "allow: Bash(echo *)" })
    expect(result?.isError).not.toBe(true)
    expect(result?.output).toContain("from the runner")
  }, 180_000)

  it("--yolo on dsh run --cluster allows it too; the runner's own deny still wins over --yolo", async () => {
    const open = await cluster("")
    const yolo = await open.run(["--yolo"])
    expect(yolo.permission).toMatchObject({ decision: "allowed", rule: "mode: bypass" })
    expect(yolo.result?.output).toContain("from the runner")

    const strict = await cluster("[permissions]\ndeny = [\"Bash(echo *)\"]\n")
    const denied = await strict.run(["--yolo", "--allow", "Bash(echo *)"])
    expect(denied.permission).toMatchObject({ decision: "denied", rule: "deny: Bash(echo *)" })
    expect(denied.result?.isError).toBe(true)
    expect(denied.result?.output).toContain("denied")
  }, 240_000)

  it("a runner's own allow does not widen the parent's rules: without --allow the command is not run", async () => {
    const c = await cluster("[permissions]\nmode = \"bypass\"\nallow = [\"Bash\"]\n")
    const { permission, result } = await c.run([])
    expect(permission).toMatchObject({ decision: "denied" })
    expect(result?.isError).toBe(true)
  }, 180_000)

  it("a lead's disallowedTools bind its child on a runner, even under --yolo (5(a) on the cluster)", async () => {
    const c = await cluster("")
    const lead = join(c.cwd, "lead.md")
    writeFileSync(lead, "---\nname: lead\ndescription: plans\ndisallowedTools: [Bash, Write, Edit]\n---\nYou lead.\n")
    const { result } = await c.run(["--yolo", "--agent-file", lead])
    expect(result?.isError).toBe(true)
    expect(result?.output).toContain("an agent above this one lists Bash in disallowedTools")
  }, 180_000)
})
