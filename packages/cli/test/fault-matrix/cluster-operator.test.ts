import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { Postgres } from "@dsh/testing-pg"
import { spawn } from "node:child_process"
import { createConnection, createServer, type Server, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { afterAll, describe, expect, it } from "vitest"
import { firstUser, messages, shardHolders, startRunner, step, stoppedAfterEach, until } from "../cluster-support.ts"
import { DSH, type DshResult, makeHome, runDsh, tempDir } from "../support.ts"

/**
 * Issue 24, item 6: `dsh run --cluster` as a new operator meets it — no runner alive, a signal
 * mid-run, `--listen HOST:0`, a store that refuses connections. Real processes, real signals,
 * an embedded PostgreSQL.
 */
const pg = await Postgres.postgresForTests()
afterAll(() => pg?.stop())


// The parent delegates one child; the child's model never answers (`hang`), unless told otherwise.
const respond = (r: FakeOpenAIServer.FakeRequest): FakeOpenAIServer.FakeReply =>
  firstUser(r).startsWith("CHILD")
    ? { hang: true }
    : step(r) === 0
    ? { toolCalls: [{ name: "subagent", arguments: { description: "wait", prompt: "CHILD wait", agent: "explore" } }] }
    : { text: "parent done" }

const { runners, servers } = stoppedAfterEach()

/** `./dsh args` started, with a handle to signal it. */
const startDsh = (args: ReadonlyArray<string>, env: Record<string, string>) => {
  const child = spawn(DSH, [...args], { cwd: tempDir(), env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmpdir(), DSH_RESIDENT: "0", ...env }, stdio: ["ignore", "pipe", "pipe"] })
  let stdout = ""
  let stderr = ""
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()))
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()))
  const done = new Promise<DshResult>((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })))
  return { child, done }
}

/** A port that refuses connections: bound once, then closed. */
const refusedPort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer()
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      probe.close(() => resolve(typeof address === "object" && address !== null ? address.port : 1))
    })
  })

/**
 * A TCP relay to PostgreSQL on a port of its own: `cut` drops every connection and stops
 * listening (the database went away), `restore` listens on the same port again.
 */
const relay = async (target: { readonly host: string; readonly port: number }) => {
  const sockets = new Set<Socket>()
  let server: Server | undefined
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      const s = createServer((client) => {
        const upstream = createConnection(target.port, target.host)
        for (const x of [client, upstream]) {
          sockets.add(x)
          x.on("close", () => sockets.delete(x))
          x.on("error", () => x.destroy())
        }
        client.pipe(upstream).pipe(client)
      })
      s.once("error", reject)
      s.listen(port, "127.0.0.1", () => {
        server = s
        const address = s.address()
        resolve(typeof address === "object" && address !== null ? address.port : port)
      })
    })
  const port = await listen(0)
  return {
    port,
    cut: () =>
      new Promise<void>((resolve) => {
        for (const x of sockets) x.destroy()
        server?.close(() => resolve())
      }),
    restore: () => listen(port).then(() => undefined)
  }
}

describe.skipIf(pg === undefined)("cluster faults an operator meets (issue 24, item 6)", () => {
  it("no runner alive: one notice naming the store (password redacted), then exit 1 after runner_wait_seconds", async () => {
    const url = await pg!.createDatabase()
    const server = await FakeOpenAIServer.startFakeOpenAIServer({ respond })
    servers.push(server)
    const home = makeHome("[cluster]\nrunner_wait_seconds = 1\n")
    const env = { DSH_HOME: home, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test", DSH_RESIDENT: "0" }
    const started = Date.now()
    const run = await runDsh(["run", "--cluster", "--model", "openai:any", "PARENT", "--store", url], { env, cwd: tempDir() })
    console.log(`no runner: exit ${run.code} after ${Date.now() - started} ms`)
    expect(run.code).toBe(1)
    const lines = run.stderr.trimEnd().split("\n")
    expect(lines.filter((l) => l.includes("waiting for a runner"))).toHaveLength(1)
    expect(lines[0]).toMatch(/^dsh: waiting for a runner \(none registered in postgres:\/\//)
    expect(lines).toHaveLength(2)
    expect(lines[1]).toMatch(/^dsh: .*no runner .*postgres:\/\//)
    expect(run.stderr).not.toContain(`:${pg!.password}@`)
    expect(lines[0]).toContain(url.replace(`:${pg!.password}@`, "@"))

    const json = await runDsh(["run", "--cluster", "--model", "openai:any", "--output-format", "json", "PARENT", "--store", url], { env, cwd: tempDir() })
    expect(json.code).toBe(1)
    const summary = JSON.parse(json.stdout) as { status: string; sessionId: string }
    expect(summary.status).toBe("failed")
    expect(json.stderr.split("\n").filter((l) => l.includes("waiting for a runner"))).toHaveLength(1)
  }, 120_000)

  it("SIGTERM during a cluster run whose child blocks: the run ends and the child is recorded cancelled", async () => {
    const url = await pg!.createDatabase()
    const server = await FakeOpenAIServer.startFakeOpenAIServer({ respond })
    servers.push(server)
    const env = { DSH_HOME: makeHome(), OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test", DSH_RESIDENT: "0" }
    runners.push(await startRunner(url, env))
    await until(async () => (await shardHolders(url)) === 1, "the runner holding shards")
    const run = startDsh(["run", "--cluster", "--model", "openai:any", "--output-format", "json", "PARENT", "--store", url], env)
    await until(() => server.requests.some((r) => firstUser(r).startsWith("CHILD")), "the child asking the model")
    const signalled = Date.now()
    run.child.kill("SIGTERM")
    const ended = await run.done
    console.log(`SIGTERM: exit ${ended.code} after ${Date.now() - signalled} ms`)
    expect(ended.code).not.toBeNull()
    const summary = JSON.parse(ended.stdout) as { sessionId: string; status: string }
    expect(summary.status).toBe("cancelled")
    const list = await runDsh(["subagents", "list", "--session", summary.sessionId, "--json", "--store", url], { env })
    const children = (JSON.parse(list.stdout) as { subagents: Array<{ name: string; status: string }> }).subagents
    expect(children).toMatchObject([{ name: "explore-1", status: "cancelled" }])
  }, 120_000)

  it("SIGTERM after the child's only runner died (kill -9): the run ends and the child is recorded cancelled", async () => {
    const url = await pg!.createDatabase()
    const server = await FakeOpenAIServer.startFakeOpenAIServer({ respond })
    servers.push(server)
    const env = { DSH_HOME: makeHome(), OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test", DSH_RESIDENT: "0" }
    const runner = await startRunner(url, env)
    runners.push(runner)
    await until(async () => (await shardHolders(url)) === 1, "the runner holding shards")
    const run = startDsh(["run", "--cluster", "--model", "openai:any", "--output-format", "json", "PARENT", "--store", url], env)
    await until(() => server.requests.some((r) => firstUser(r).startsWith("CHILD")), "the child asking the model")
    runner.kill("SIGKILL")
    await runner.exited
    // Nobody answers the child's Run or Stop now: the stop must not wait for a runner to come.
    const signalled = Date.now()
    run.child.kill("SIGTERM")
    const ended = await run.done
    console.log(`SIGTERM without a runner: exit ${ended.code} after ${Date.now() - signalled} ms`)
    const summary = JSON.parse(ended.stdout) as { sessionId: string; status: string }
    expect(summary.status).toBe("cancelled")
    const list = await runDsh(["subagents", "list", "--session", summary.sessionId, "--json", "--store", url], { env })
    expect((JSON.parse(list.stdout) as { subagents: Array<{ name: string; status: string }> }).subagents).toMatchObject([{ name: "explore-1", status: "cancelled" }])
  }, 120_000)

  it("the child's only runner killed mid-run, none to take over: the child fails naming the store, the parent goes on", async () => {
    const url = await pg!.createDatabase()
    const server = await FakeOpenAIServer.startFakeOpenAIServer({ respond })
    servers.push(server)
    const env = { DSH_HOME: makeHome("[cluster]\nrunner_wait_seconds = 1\n"), OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test", DSH_RESIDENT: "0" }
    const runner = await startRunner(url, env)
    runners.push(runner)
    await until(async () => (await shardHolders(url)) === 1, "the runner holding shards")
    const run = startDsh(["run", "--cluster", "--model", "openai:any", "--output-format", "json", "PARENT", "--store", url], env)
    await until(() => server.requests.some((r) => firstUser(r).startsWith("CHILD")), "the child asking the model")
    runner.kill("SIGKILL")
    await runner.exited
    const killed = Date.now()
    const ended = await run.done
    // A killed runner's row stays fresh until its heartbeat is 35 s old; then the wait (1 s) runs out.
    console.log(`runner killed: the run ended after ${Date.now() - killed} ms`)
    expect(ended.code).toBe(0)
    expect(ended.stderr.trimEnd().split("\n")).toEqual([`dsh: waiting for a runner (none registered in ${url.replace(`:${pg!.password}@`, "@")})`])
    const summary = JSON.parse(ended.stdout) as { sessionId: string; result: string; subagents: Array<{ name: string; status: string }> }
    expect(summary).toMatchObject({ result: "parent done", subagents: [{ name: "explore-1", status: "failed" }] })
    // What the parent's model was told of the child names the store.
    const last = server.requests.filter((r) => !firstUser(r).startsWith("CHILD")).at(-1)!
    expect(messages(last).some((m) => (m.content ?? "").includes("no runner registered in postgres://"))).toBe(true)
  }, 150_000)

  it("SIGTERM while waiting for a runner: the run ends, cancelled", async () => {
    const url = await pg!.createDatabase()
    const server = await FakeOpenAIServer.startFakeOpenAIServer({ respond })
    servers.push(server)
    const env = { DSH_HOME: makeHome("[cluster]\nrunner_wait_seconds = 600\n"), OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test", DSH_RESIDENT: "0" }
    const run = startDsh(["run", "--cluster", "--model", "openai:any", "--output-format", "json", "PARENT", "--store", url], env)
    const stderr: Array<string> = []
    run.child.stderr.on("data", (c: Buffer) => stderr.push(c.toString()))
    await until(() => stderr.join("").includes("waiting for a runner"), "the waiting notice")
    const signalled = Date.now()
    run.child.kill("SIGTERM")
    const ended = await run.done
    console.log(`SIGTERM while waiting: exit ${ended.code} after ${Date.now() - signalled} ms`)
    expect(ended.code).toBe(1)
    expect(JSON.parse(ended.stdout)).toMatchObject({ status: "cancelled" })
  }, 120_000)

  it("dsh runner --listen 127.0.0.1:0 binds a free port, advertises it, and a parent uses it", async () => {
    const url = await pg!.createDatabase()
    const server = await FakeOpenAIServer.startFakeOpenAIServer({ respond: (r) => firstUser(r).startsWith("CHILD") ? { text: "child done" } : step(r) === 0 ? respond(r) : { text: "parent done" } })
    servers.push(server)
    const env = { DSH_HOME: makeHome(), OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test", DSH_RESIDENT: "0" }
    const runner = await startRunner(url, env, ["--listen", "127.0.0.1:0"])
    runners.push(runner)
    expect(runner.address).toMatch(/^127\.0\.0\.1:\d+$/)
    expect(runner.address).not.toBe("127.0.0.1:0")
    await until(async () => (await shardHolders(url)) === 1, "the runner holding shards")
    const run = await runDsh(["run", "--cluster", "--model", "openai:any", "--output-format", "json", "PARENT", "--store", url], { env })
    expect(run.stderr).toBe("")
    expect(run.code).toBe(0)
    expect(JSON.parse(run.stdout)).toMatchObject({ status: "completed", subagents: [{ name: "explore-1", status: "completed" }] })
  }, 120_000)

  it("a store URL that refuses connections: one line naming the store and what to check, exit 1", async () => {
    const port = await refusedPort()
    const url = `postgres://dsh:secret-pw@127.0.0.1:${port}/dsh`
    const env = { DSH_HOME: makeHome("[cluster]\nrunner_wait_seconds = 1\n"), DSH_RESIDENT: "0" }
    for (const args of [["run", "--cluster", "--model", "scripted", "PARENT"], ["runner"]]) {
      const started = Date.now()
      const r = await runDsh([...args, "--store", url], { env })
      console.log(`refused store (${args[0]}): exit ${r.code} after ${Date.now() - started} ms`)
      expect(r.code).toBe(1)
      expect(r.stderr).toMatch(new RegExp(`^dsh: cannot reach PostgreSQL at 127\\.0\\.0\\.1:${port}: .*\\(store postgres://dsh@127\\.0\\.0\\.1:${port}/dsh: check .*\\)\\n$`))
      expect(r.stderr).not.toContain("secret-pw")
    }
  }, 120_000)

  it("PostgreSQL goes away mid-run: one line naming the store, exit 1; once it is back, the session continues", async () => {
    const direct = await pg!.createDatabase()
    const db = new URL(direct)
    const proxy = await relay({ host: db.hostname, port: Number(db.port) })
    db.port = String(proxy.port)
    const url = db.toString()
    // The parent's second prompt ("again") is answered at once: it shows the session carries on.
    const lastUser = (r: FakeOpenAIServer.FakeRequest) => messages(r).findLast((m) => m.role === "user")?.content ?? ""
    const server = await FakeOpenAIServer.startFakeOpenAIServer({ respond: (r) => lastUser(r).includes("again") ? { text: "carried on" } : respond(r) })
    servers.push(server)
    const env = { DSH_HOME: makeHome("[cluster]\nrunner_wait_seconds = 2\n"), OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test", DSH_RESIDENT: "0" }
    runners.push(await startRunner(url, env))
    await until(async () => (await shardHolders(direct)) === 1, "the runner holding shards")
    const run = startDsh(["run", "--cluster", "--model", "openai:any", "PARENT", "--store", url], env)
    await until(() => server.requests.some((r) => firstUser(r).startsWith("CHILD")), "the child asking the model")
    const cut = Date.now()
    await proxy.cut()
    const ended = await run.done
    console.log(`database gone: exit ${ended.code} after ${Date.now() - cut} ms; stderr: ${ended.stderr}`)
    expect(ended.code).toBe(1)
    expect(ended.stderr.trimEnd().split("\n")).toHaveLength(1)
    expect(ended.stderr).toContain(url.replace(`:${pg!.password}@`, "@"))
    expect(ended.stderr).not.toContain(pg!.password)

    // Back again: the records left are a session that a later run continues.
    await proxy.restore()
    const listed = await runDsh(["sessions", "list", "--json", "--store", url], { env })
    const [session] = (JSON.parse(listed.stdout) as { sessions: Array<{ id: string }> }).sessions
    const again = await runDsh(["run", "--cluster", "--model", "openai:any", "--output-format", "json", "--session", session!.id, "PARENT again", "--store", url], { env })
    expect(again.stderr).toBe("")
    expect(again.code).toBe(0)
    expect(JSON.parse(again.stdout)).toMatchObject({ sessionId: session!.id, status: "completed", result: "carried on" })
  }, 180_000)
})
