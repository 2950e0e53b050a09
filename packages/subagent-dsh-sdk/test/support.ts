import type { Events } from "@dsh/core"
import { FileSessionStore, type SessionStore } from "@dsh/session"
import { Fixtures } from "@dsh/subagent/testing"
import { Subagents, SubagentTree, type Vocabulary } from "@dsh/subagent"
import { Effect, Stream } from "effect"
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { ProcessChecks } from "@dsh/subprocess/testing"
import { DshSdkOptions } from "../src/index.ts"

export const ROOT = resolve(import.meta.dirname, "../../..")
/** The bundled CLI: `dsh sdk` children and `dsh run` parents run it (`npm test` builds it first). */
export const DSH_MAIN = join(ROOT, "packages/cli/dist/main.js")

export const tempDir = (prefix = "dsh-sdk-child-"): string => mkdtempSync(join(tmpdir(), prefix))

/** A parent model that only names a spec: the SDK backend passes it to the child, never calls it. */
export const specModel = (provider: string, model: string): Vocabulary.ParentInfo["model"] => ({
  provider,
  model,
  stream: () => Stream.die(new Error("the parent model is not called in these tests")),
  generate: () => Effect.die(new Error("the parent model is not called in these tests"))
})

/** A session tree in a temp home with the given providers and types (no in-process children). */
export const makeTree = (home: string, providers: ReadonlyArray<Vocabulary.SubagentProvider>, types: ReadonlyArray<Vocabulary.AgentType>) =>
  Effect.gen(function*() {
    const store = yield* FileSessionStore.make({ home })
    const session: SessionStore.SessionHandle = yield* store.create({ agent: "agent", cwd: home, model: "test" })
    const tree = yield* SubagentTree.make({
      session,
      childContext: () => Effect.succeed({ tools: [], systemPrompt: "" })
    })
    const subagents: Subagents.SubagentsShape = yield* Subagents.make({ tree, providers, types: [...types] }).pipe(Effect.orDie)
    return { store, session, tree, subagents }
  })

export const parentInfo = (cwd: string, model: Vocabulary.ParentInfo["model"], events?: Array<Events.AgentEvent>): Vocabulary.ParentInfo =>
  Fixtures.testParent(model, { cwd, onEvent: (event) => Effect.sync(() => void events?.push(event)) })

export const sdkType = (provider?: string): Vocabulary.AgentType => DshSdkOptions.dshSdkAgentType(provider)

/** Polls a condition (bounded) — for things another process does. */
export const eventually = (condition: () => boolean, attempts = 1000): Effect.Effect<boolean> =>
  Effect.gen(function*() {
    for (let i = 0; i < attempts && !condition(); i++) yield* Effect.sleep(10)
    return condition()
  })

/** Live (non-zombie) direct children of a process, from /proc. */
export const childPids = (parent: number): Array<number> =>
  readdirSync("/proc").filter((e) => /^\d+$/.test(e)).flatMap((e) => {
    try {
      const stat = readFileSync(`/proc/${e}/stat`, "utf8")
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      // The launcher's parent-death watchdog is not a child agent.
      return Number(fields[1]) === parent && fields[0] !== "Z" && !ProcessChecks.isWatchdog(Number(e)) ? [Number(e)] : []
    } catch {
      return []
    }
  })

export const readJsonLines = (file: string): Array<Record<string, unknown>> =>
  readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as Record<string, unknown>)

export const writeJson = (file: string, value: unknown): string => {
  writeFileSync(file, JSON.stringify(value))
  return file
}

/**
 * A fake `dsh sdk` child that speaks just enough of the protocol (initialize, session.create)
 * and then misbehaves on `session.prompt` as `mode` says: `crash` (exits 7 mid-turn), `garbage`,
 * `oversized`, `hang` (ignores cancel, EOF and SIGTERM). It starts a background `sleep` (its own
 * child) and writes both pids to `pids`, so tests can check that the whole tree is gone.
 */
export const fakeChildScript = (dir: string): string => {
  const file = join(dir, "fake-child.cjs")
  writeFileSync(file, FAKE_CHILD)
  return file
}

const FAKE_CHILD = `
const { spawn } = require("node:child_process")
const { appendFileSync } = require("node:fs")
const [mode, pidsFile] = process.argv.slice(2)
const sleeper = spawn("sleep", ["300"], { stdio: "ignore" })
appendFileSync(pidsFile, process.pid + "\\n" + sleeper.pid + "\\n")
if (mode === "hang") process.on("SIGTERM", () => {})
if (mode === "silent" || mode === "hang") setInterval(() => {}, 1000)
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n")
let buf = ""
process.stdin.on("end", () => { if (mode !== "hang") process.exit(0) })
process.stdin.on("data", (chunk) => {
  buf += chunk
  let i
  while ((i = buf.indexOf("\\n")) >= 0) {
    const msg = JSON.parse(buf.slice(0, i)); buf = buf.slice(i + 1)
    if (mode === "silent") continue
    if (msg.method === "initialize") send({ jsonrpc: "2.0", id: msg.id, result: { protocolVersion: 1,
      serverInfo: { name: "fake", version: "0" }, capabilities: { methods: [], children: { send: false, stop: false }, maxFrameBytes: 8388608 } } })
    else if (msg.method === "session.create") send({ jsonrpc: "2.0", id: msg.id, result: { session: { id: "s-1", agent: "agent",
      cwd: "/", model: "m", status: "idle", createdAt: "t", updatedAt: "t" } } })
    else if (msg.method === "session.prompt") {
      send({ jsonrpc: "2.0", method: "session.event", params: { sessionId: "s-1", event: { type: "turn-start", turn: 0, prompt: "x" } } })
      send({ jsonrpc: "2.0", method: "session.event", params: { sessionId: "s-1", event: { type: "usage", model: "m", usage: { inputTokens: 2, outputTokens: 1, totalTokens: 3 } } } })
      if (mode === "crash") { process.stderr.write("fake child: segfault (simulated)\\n"); process.exit(7) }
      if (mode === "garbage") process.stdout.write("Traceback (most recent call last): oops\\n")
      if (mode === "oversized") process.stdout.write('{"jsonrpc":"2.0","method":"session.event","params":"' + "x".repeat(9 * 1024 * 1024) + '"}\\n')
    }
  }
})
`
