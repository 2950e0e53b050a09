import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { FaultProxy, Postgres } from "@dsh/testing-pg"
import { execFileSync } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { makeHome, runDsh, tempDir } from "../support.ts"

// Issue 21 item 5(f): the store fails mid-run (here a full disk: the session lives on a small
// tmpfs that the test fills while the model is answering). dsh says so in one stderr line
// naming the store and the cause, and `--output-format json` still prints one object.

const mounts: Array<string> = []
const servers: Array<FakeOpenAIServer.FakeServer> = []
afterEach(async () => {
  for (const dir of mounts.splice(0)) execFileSync("umount", [dir])
  for (const s of servers.splice(0)) await s.close()
})

/** A tmpfs of `size` at a fresh directory, or undefined where mounting is not allowed. */
const smallDisk = (size: string): string | undefined => {
  const dir = tempDir("dsh-small-disk-")
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir], { stdio: "ignore" })
  } catch {
    return undefined
  }
  mounts.push(dir)
  return dir
}

/** Fills the file system of `dir` to the last byte. */
const fill = (dir: string) => {
  try {
    execFileSync("dd", ["if=/dev/zero", `of=${join(dir, "filler")}`, "bs=4k"], { stdio: "ignore" })
  } catch {
    // dd stops with an error once the disk is full: that is the point.
  }
}

const users = (r: FakeOpenAIServer.FakeRequest) => (r.body as { messages: ReadonlyArray<{ role: string; content: string | null }> }).messages.filter((m) => m.role === "user")

/**
 * `dsh run` on the PostgreSQL store at `url`, the model at `server`: it exits 1 with one stderr
 * line naming the store without its password, and json still prints one failed object. The line.
 */
const failsNamingTheStore = async (url: string, server: FakeOpenAIServer.FakeServer, password: string): Promise<string> => {
  servers.push(server)
  const r = await runDsh(["run", "--store", url, "--model", "openai:any", "--output-format", "json", "hello"], {
    env: { DSH_HOME: makeHome(), DSH_RESIDENT: "0", OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" }
  })
  expect(r.code).toBe(1)
  const lines = r.stderr.split("\n").filter((l) => l !== "")
  expect(lines, r.stderr).toHaveLength(1)
  expect(lines[0]).toMatch(/session store \(postgres/i)
  expect(lines[0]).not.toContain(password)
  expect(JSON.parse(r.stdout)).toMatchObject({ status: "failed" })
  return lines[0]!
}

describe("fault matrix: the store fails mid-run", { timeout: 90_000 }, () => {
  it("file store on a disk that fills up: one stderr line naming the store and the cause; json prints one failed object", async (ctx) => {
    const disk = smallDisk("2m")
    if (disk === undefined) {
      console.log("skipped: mounting a small tmpfs is not allowed here")
      return ctx.skip()
    }
    const home = join(disk, "home")
    mkdirSync(home)
    writeFileSync(join(home, "config.toml"), "")
    const server = await FakeOpenAIServer.startFakeOpenAIServer({
      respond: (r) => {
        // The run has started and recorded its prompt; now the disk fills, then the model answers at length.
        fill(disk)
        return users(r).length > 0 ? { text: "an answer the store cannot take. ".repeat(200) } : { text: "?" }
      }
    })
    servers.push(server)
    const r = await runDsh(["run", "--model", "openai:any", "--output-format", "json", "hello"], {
      env: { DSH_HOME: home, DSH_RESIDENT: "0", OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" }
    })
    expect(r.code).toBe(1)
    const lines = r.stderr.split("\n").filter((l) => l !== "")
    expect(lines, r.stderr).toHaveLength(1)
    expect(lines[0]).toMatch(/store/i)
    expect(lines[0]).toMatch(/ENOSPC|no space left/i)
    const doc = JSON.parse(r.stdout) as Record<string, unknown>
    expect(doc).toMatchObject({ status: "failed" })
    expect(Object.keys(doc)).toEqual(expect.arrayContaining(["sessionId", "status", "result", "usage", "subagents"]))
  })

  it("PostgreSQL stopped mid-run: one stderr line naming the store and the cause; json prints one failed object", async (ctx) => {
    // A server of this test's own: it is stopped while the model answers.
    const pg = await Postgres.postgresForTests()
    if (pg === undefined) return ctx.skip()
    let stopped = false
    try {
      const url = await pg.createSchema()
      const server = await FakeOpenAIServer.startFakeOpenAIServer({
        respond: async () => {
          if (!stopped) {
            stopped = true
            await pg.stop()
          }
          return { text: "an answer the store cannot take" }
        }
      })
      await failsNamingTheStore(url, server, pg.password)
    } finally {
      if (!stopped) await pg.stop()
    }
  })

  it("PostgreSQL whose host vanishes mid-run (nothing answers, nothing is refused): one stderr line naming the store and what happened, instead of a hang", async (ctx) => {
    const pg = await Postgres.postgresForTests()
    if (pg === undefined) return ctx.skip()
    const proxy = await FaultProxy.start(pg.port)
    try {
      const url = (await pg.createSchema()).replace(`:${pg.port}/`, `:${proxy.port}/`)
      const server = await FakeOpenAIServer.startFakeOpenAIServer({
        respond: () => {
          // From here on every byte to the server is swallowed, as by a host that is gone.
          proxy.blackhole()
          return { text: "an answer the store cannot take" }
        }
      })
      expect(await failsNamingTheStore(url, server, pg.password)).toContain("no answer")
    } finally {
      proxy.close()
      await pg.stop()
    }
  })
})
