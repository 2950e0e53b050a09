import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { Postgres } from "@dsh/testing-pg"
import { createServer } from "node:net"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { createSdkClient } from "@dsh/sdk"
import { DSH, makeHome, runDsh, sessionIds, tempDir } from "./support.ts"

// One PostgreSQL for this file, started once; each test works in a schema of its own.
const pg = await Postgres.postgresForTests()
afterAll(() => pg?.stop())

interface Body {
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: string | null }>
}
const body = (r: FakeOpenAIServer.FakeRequest) => r.body as Body
const firstUser = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.find((m) => m.role === "user")?.content ?? ""
const step = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.filter((m) => m.role === "assistant").length

/** The parent delegates once to `explore`; the child answers. */
const respond = (r: FakeOpenAIServer.FakeRequest): FakeOpenAIServer.FakeReply =>
  firstUser(r).startsWith("CHILD")
    ? { text: "The word is PAPAYA.", usage: { input: 30, output: 5 } }
    : step(r) === 0
    ? { toolCalls: [{ name: "subagent", arguments: { description: "find it", prompt: "CHILD: find the word", agent: "explore" } }] }
    : { text: "My child found PAPAYA." }

const closedPort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const address = probe.address()
      probe.close(() => resolve(typeof address === "object" && address !== null ? address.port : 1))
    })
  })

describe.skipIf(pg === undefined)("sessions in PostgreSQL (--store postgres://…)", () => {
  it("dsh run writes the session there; sessions list and subagents list/info/log read it by flag, DSH_STORE or config", async () => {
    const server = await FakeOpenAIServer.startFakeOpenAIServer({ respond })
    try {
      const url = await pg!.createSchema()
      const home = makeHome()
      const env = { DSH_HOME: home, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" }
      const run = await runDsh(["run", "--store", url, "--model", "openai:any", "--output-format", "json", "PARENT: find the word"], { cwd: tempDir(), env })
      expect(run.stderr).toBe("")
      expect(run.code).toBe(0)
      const { sessionId, result } = JSON.parse(run.stdout) as { sessionId: string; result: string }
      expect(result).toBe("My child found PAPAYA.")
      expect(sessionIds(home), "nothing is written to the file store").toEqual([])

      const listed = await runDsh(["sessions", "list", "--json", "--store", url], { env: { DSH_HOME: home } })
      expect(listed.stderr).toBe("")
      expect(JSON.parse(listed.stdout).sessions).toMatchObject([{ id: sessionId, status: "completed" }])
      const byEnv = await runDsh(["sessions", "list", "--json"], { env: { DSH_HOME: home, DSH_STORE: url } })
      expect(JSON.parse(byEnv.stdout).sessions.map((s: { id: string }) => s.id)).toEqual([sessionId])
      const configured = makeHome(`store = "${url}"\n`)
      const byConfig = await runDsh(["sessions", "list", "--json"], { env: { DSH_HOME: configured } })
      expect(JSON.parse(byConfig.stdout).sessions.map((s: { id: string }) => s.id)).toEqual([sessionId])
      const onDisk = await runDsh(["sessions", "list", "--json"], { env: { DSH_HOME: home } })
      expect(JSON.parse(onDisk.stdout).sessions, "without a store setting, the file store (empty) is used").toEqual([])

      const children = await runDsh(["subagents", "list", "--session", sessionId, "--json", `--store=${url}`], { env: { DSH_HOME: home } })
      expect(children.stderr).toBe("")
      expect(JSON.parse(children.stdout).subagents).toMatchObject([{ name: "explore-1", agent: "explore", provider: "spawn", status: "completed", parent: "main" }])
      const info = await runDsh(["subagents", "info", "explore-1", "--session", sessionId, "--json", "--store", url], { env: { DSH_HOME: home } })
      const transcript = (JSON.parse(info.stdout) as { transcript: string }).transcript
      expect(transcript).toBe(`postgres://postgres@127.0.0.1:${pg!.port}/postgres#${sessionId}/explore-1`)
      expect(transcript).not.toContain(pg!.password)
      const log = await runDsh(["subagents", "log", "explore-1", "--session", sessionId, "--store", url], { env: { DSH_HOME: home } })
      expect(log.stderr).toBe("")
      expect(log.stdout).toContain("CHILD: find the word")
      expect(log.stdout).toContain("The word is PAPAYA.")

      // Continued from another process: the same session, its history read from PostgreSQL.
      const again = await runDsh(["run", "--store", url, "--model", "openai:any", "--session", sessionId, "--output-format", "json", "PARENT: again"], { cwd: tempDir(), env })
      expect(again.stderr).toBe("")
      expect(JSON.parse(again.stdout).sessionId).toBe(sessionId)
    } finally {
      await server.close()
    }
  }, 120_000)

  it("dsh sdk --store postgres://… keeps the sessions it serves there", async () => {
    const url = await pg!.createSchema()
    const home = makeHome()
    const script = join(home, "script.json")
    writeFileSync(script, JSON.stringify({ name: "echo", rules: [{ when: { lastUser: "^(.*)$" }, reply: { text: "you said {{1}}" } }] }))
    const client = await createSdkClient({ command: DSH, args: ["sdk", "--store", url, "--model", `scripted:${script}`], cwd: home, env: { DSH_HOME: home } })
    try {
      const session = await client.createSession()
      expect((await client.prompt({ sessionId: session.id, prompt: "hello" })).result).toBe("you said hello")
    } finally {
      await client.close()
    }
    expect(sessionIds(home)).toEqual([])
    const listed = await runDsh(["sessions", "list", "--json", "--store", url], { env: { DSH_HOME: home } })
    expect(JSON.parse(listed.stdout).sessions).toMatchObject([{ status: "completed" }])
  }, 60_000)

  it("a server that is not there is one line naming host:port (exit 1), without the password", async () => {
    const port = await closedPort()
    const home = makeHome()
    const r = await runDsh(["sessions", "list", "--store", `postgres://dsh:s3cret@127.0.0.1:${port}/dsh`], { env: { DSH_HOME: home } })
    expect(r.code).toBe(1)
    expect(r.stdout).toBe("")
    expect(r.stderr).toBe(`dsh: cannot reach PostgreSQL at 127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port} (store postgres://dsh@127.0.0.1:${port}/dsh: check that PostgreSQL runs there and accepts connections, and the URL)\n`)
  }, 30_000)

  it("a refused login is one line without the password (exit 1)", async () => {
    const home = makeHome()
    const url = pg!.url.replace(`:${pg!.password}@`, ":wrong-password@")
    const r = await runDsh(["run", "--store", url, "hi"], { env: { DSH_HOME: home } })
    expect(r.code).toBe(1)
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1)
    expect(r.stderr).toMatch(/^dsh: PostgreSQL at 127\.0\.0\.1:\d+ refused the login to postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres: password authentication failed for user "postgres"$/m)
    expect(r.stderr).not.toContain("wrong-password")
  }, 30_000)
})

describe("--store DIR", () => {
  it("keeps sessions in that directory instead of $DSH_HOME", async () => {
    const home = makeHome()
    const elsewhere = tempDir("dsh-store-")
    writeFileSync(join(home, "config.toml"), "")
    const r = await runDsh(["run", "--store", elsewhere, "--output-format", "json", "hello"], { env: { DSH_HOME: home } })
    expect(r.code).toBe(0)
    const { sessionId } = JSON.parse(r.stdout) as { sessionId: string }
    expect(sessionIds(home)).toEqual([])
    expect(sessionIds(elsewhere)).toEqual([sessionId])
  }, 30_000)
})
