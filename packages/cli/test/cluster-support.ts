import type { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { SessionStore } from "@dsh/session"
import { PgSessionStore } from "@dsh/session-pg"
import { Records } from "@dsh/subagent"
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted, Schema } from "effect"
import { Reactivity } from "effect/reactivity"
import { type ChildProcess, spawn } from "node:child_process"
import { tmpdir } from "node:os"
import { afterEach } from "vitest"
import { DSH } from "./support.ts"

/** A `./dsh runner` process started by a test: its address once ready, its exit. */
export interface Runner {
  readonly address: string
  readonly pid: number
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null; readonly stderr: string }>
  readonly kill: (signal: NodeJS.Signals) => void
}

/** Starts `./dsh runner --store URL [args]`; resolves on its ready line (`dsh runner listening on HOST:PORT`). */
export const startRunner = (url: string, env: Record<string, string>, args: ReadonlyArray<string> = []): Promise<Runner> =>
  new Promise((ready, fail) => {
    const child: ChildProcess = spawn(DSH, ["runner", "--store", url, ...args], {
      cwd: tmpdir(),
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmpdir(), ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((done) =>
      child.on("close", (code, signal) => done({ code, signal, stderr })))
    child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()))
    child.stdout!.on("data", (c: Buffer) => {
      stdout += c.toString()
      const line = /^dsh runner listening on (\S+)\n/m.exec(stdout)
      if (line !== null) ready({ address: line[1]!, pid: child.pid!, exited, kill: (signal) => void child.kill(signal) })
    })
    child.on("error", fail)
    void exited.then(({ code, signal }) => fail(new Error(`runner exited before it was ready (${signal ?? code}): ${stderr}`)))
  })

/** Resolves once `condition` holds, checking it as often as the event loop allows (no fixed sleep decides anything). */
export const until = async (condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

const decodeMeta = Schema.decodeUnknownSync(Records.ChildMeta)

/** A session's children as the store holds them: each one's meta and transcript records. */
export const readChildren = (url: string, sessionId: string, handles: ReadonlyArray<string>) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const store = yield* SessionStore.SessionStore
    const session = yield* store.open(sessionId)
    return yield* Effect.forEach(handles, (handle) =>
      Effect.gen(function*() {
        const child = yield* session.child(handle)
        const raw = yield* child.readMeta
        const meta = raw === undefined ? undefined : decodeMeta(raw)
        const { records } = yield* child.transcript.read
        return { handle, meta, records }
      }))
  })).pipe(Effect.provide(PgSessionStore.layer({ url }))))

/** The runners that hosted a child's runs, in order, from the notices in its transcript. */
export const hostedBy = (records: ReadonlyArray<{ readonly type: string }>): Array<string> =>
  records.flatMap((r) => {
    const m = r.type === "notice" ? /hosted by runner (\S+)/.exec((r as { message?: string }).message ?? "") : null
    return m === null ? [] : [m[1]!]
  })

/**
 * How many processes hold shards now: Effect Cluster's shard locks are two-key advisory locks in
 * one namespace (the largest group of such locks in the database).
 */
export const shardHolders = (url: string): Promise<number> =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const sql = yield* PgClient.make({ url: Redacted.make(url), maxConnections: 1 })
    const rows = yield* sql<{ readonly holders: number }>`
      SELECT count(DISTINCT pid)::int AS holders, count(*) AS n FROM pg_locks
      WHERE locktype = 'advisory' AND granted AND objsubid = 2
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
      GROUP BY classid ORDER BY n DESC LIMIT 1`
    return rows[0]?.holders ?? 0
  })).pipe(Effect.provide(Reactivity.layer)))

interface Body {
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: string | null }>
}
/** What the parent and child models were sent (the fake server's request bodies). */
export const messages = (r: FakeOpenAIServer.FakeRequest) => (r.body as Body).messages
export const firstUser = (r: FakeOpenAIServer.FakeRequest) => messages(r).find((m) => m.role === "user")?.content ?? ""
/** How many model turns came before this request. */
export const step = (r: FakeOpenAIServer.FakeRequest) => messages(r).filter((m) => m.role === "assistant").length
export const mentions = (r: FakeOpenAIServer.FakeRequest, text: string) => messages(r).some((m) => (m.content ?? "").includes(text))

/**
 * The runners and fake model servers a test starts, pushed here and stopped after each test
 * (only these processes and servers).
 */
export const stoppedAfterEach = () => {
  const runners: Array<Runner> = []
  const servers: Array<FakeOpenAIServer.FakeServer> = []
  afterEach(async () => {
    for (const r of runners) r.kill("SIGKILL")
    await Promise.all(runners.map((r) => r.exited))
    await Promise.all(servers.map((s) => s.close()))
    runners.length = 0
    servers.length = 0
  })
  return { runners, servers }
}
