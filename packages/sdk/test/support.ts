import { AgentHost } from "@dsh/agent"
import { type Events, Usage } from "@dsh/core"
import { spawn as spawnProcess } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { PassThrough } from "node:stream"
import { Effect, Fiber } from "effect"
import { SdkServer } from "../src/index.ts"

export const ROOT = resolve(import.meta.dirname, "../../..")
/** The bundled CLI; tests that run `dsh sdk` need it built (`npm test` builds first). */
export const DSH_MAIN = join(ROOT, "packages/cli/dist/main.js")

export const tempDir = (prefix = "dsh-sdk-"): string => mkdtempSync(join(tmpdir(), prefix))

/** Two in-memory pipes: what the client writes the server reads, and back. */
export const streamPair = () => {
  const toServer = new PassThrough()
  const toClient = new PassThrough()
  return { client: { input: toClient, output: toServer }, server: { input: toServer, output: toClient } }
}

const info = (id: string, cwd: string): AgentHost.HostSessionInfo => ({
  id,
  agent: "agent",
  cwd,
  model: "fake:model",
  status: "idle",
  createdAt: "2026-11-29T00:00:00.000Z",
  updatedAt: "2026-11-29T00:00:00.000Z"
})

/**
 * An in-memory host whose prompts follow their text: `hang` runs until cancelled, `child`
 * streams a descendant's events too, `big:N` streams N KiB of text deltas, `crash` dies;
 * anything else answers `echo <prompt>`.
 */
export const makeFakeHost = (): AgentHost.AgentHostShape & { readonly prompts: Array<string>; readonly parts: Array<unknown> } => {
  const sessions = new Map<string, AgentHost.HostSessionInfo>()
  const prompts: Array<string> = []
  const parts: Array<unknown> = []
  let n = 0
  const usage = Usage.make(10, 5)
  return {
    prompts,
    parts,
    createSession: (o) =>
      Effect.sync(() => {
        const s = info(`s-${++n}`, o.cwd)
        sessions.set(s.id, s)
        return s
      }),
    loadSession: (id) => {
      const s = sessions.get(id)
      return s === undefined
        ? Effect.fail(new AgentHost.HostError({ reason: "NotFound", message: `no session ${id}` }))
        : Effect.succeed({ ...s, records: [{ type: "turn-end", turn: 0, status: "completed", result: "x", usage, durationMs: 1, seq: 1, ts: "t" }] as const })
    },
    listSessions: Effect.sync(() => [...sessions.values()]),
    // No continuation manager: children cannot be continued or stopped here.
    sendToChild: () => Effect.fail(new AgentHost.HostError({ reason: "Unsupported", message: "this host cannot continue children" })),
    stopChild: () => Effect.fail(new AgentHost.HostError({ reason: "Unsupported", message: "this host cannot stop children" })),
    listChildren: () => Effect.succeed([]),
    prompt: (o) =>
      Effect.gen(function*() {
        if (!sessions.has(o.sessionId)) return yield* new AgentHost.HostError({ reason: "NotFound", message: `no session ${o.sessionId}` })
        prompts.push(o.prompt)
        if (o.promptParts !== undefined) parts.push(o.promptParts)
        const emit = (e: Events.AgentEvent) => o.onEvent?.(e) ?? Effect.void
        const end = (status: "completed" | "cancelled", result: string, u: Usage.Usage) =>
          emit({ type: "turn-end", turn: 0, status, result, usage: u, durationMs: 1 })
        yield* emit({ type: "turn-start", turn: 0, prompt: o.prompt })
        if (o.prompt === "crash") return yield* Effect.die(new Error("host bug"))
        if (o.prompt === "hang") {
          yield* emit({ type: "text-delta", text: "working" })
          yield* emit({ type: "usage", model: "fake:model", usage })
          return yield* Effect.never.pipe(Effect.onInterrupt(() => end("cancelled", "", usage)))
        }
        if (o.prompt.startsWith("big:")) {
          const kib = Number(o.prompt.slice(4))
          const piece = "x".repeat(1024)
          for (let i = 0; i < kib; i++) yield* emit({ type: "text-delta", text: piece })
        }
        if (o.prompt === "child") {
          yield* o.onChildEvent?.("explore-1", { type: "usage", model: "fake:model", usage: Usage.make(7, 3) }) ?? Effect.void
          yield* o.onChildEvent?.("explore-1", { type: "text-delta", text: "grandchild" }) ?? Effect.void
        }
        yield* emit({ type: "text-delta", text: `echo ${o.prompt}` })
        yield* emit({ type: "usage", model: "fake:model", usage })
        yield* end("completed", `echo ${o.prompt}`, usage)
        return { sessionId: o.sessionId, status: "completed", result: `echo ${o.prompt}`, usage, subagents: [] }
      })
  }
}

/** Serves the fake host on an in-memory pair for the rest of the scope. */
export const serveFake = (host: AgentHost.AgentHostShape, options: Partial<SdkServer.ServeSdkOptions> = {}) =>
  Effect.gen(function*() {
    const pair = streamPair()
    const fiber = yield* Effect.forkScoped(SdkServer.serveSdk({ ...pair.server, ...options }).pipe(Effect.provideService(AgentHost.AgentHost, host)))
    return { ...pair, fiber, done: Fiber.await(fiber) }
  })

/**
 * Writes a small Node script that plays a broken SDK server, and returns how to run it.
 * `mode`: `garbage` (answers initialize, then prints a non-JSON line), `oversized`
 * (answers, then a frame over the limit), `exit` (answers, then exits mid-request),
 * `silent` (never answers), `ignore-eof` (answers; ignores EOF and SIGTERM).
 */
export const fakeServerScript = (dir: string): string => {
  const file = join(dir, "fake-sdk-server.mjs")
  writeFileSync(file, FAKE_SERVER)
  return file
}

const FAKE_SERVER = `
const mode = process.argv[2]
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n")
if (mode === "ignore-eof") { process.on("SIGTERM", () => {}); setInterval(() => {}, 1000) }
if (mode === "silent") setInterval(() => {}, 1000)
let buf = ""
process.stdin.on("data", (chunk) => {
  buf += chunk
  let i
  while ((i = buf.indexOf("\\n")) >= 0) {
    const line = buf.slice(0, i); buf = buf.slice(i + 1)
    const msg = JSON.parse(line)
    if (mode === "silent") continue
    if (msg.method === "initialize") {
      send({ jsonrpc: "2.0", id: msg.id, result: { protocolVersion: 1, serverInfo: { name: "fake", version: "0" },
        capabilities: { methods: [], children: { send: false, stop: false }, maxFrameBytes: 1024 } } })
      continue
    }
    if (mode === "garbage") process.stdout.write("this is not json\\n")
    else if (mode === "oversized") process.stdout.write("[" + "1,".repeat(600000) + "1]\\n")
    else if (mode === "exit") { process.stderr.write("fake server: dying on purpose\\n"); process.exit(3) }
    else if (mode === "bad-result") send({ jsonrpc: "2.0", id: msg.id, result: { sessions: "nope" } })
  }
})
`

/** Starts a node script with piped stdio; returns the pieces a client needs. */
export const startScript = (file: string, args: ReadonlyArray<string>) => {
  const child = spawnProcess(process.execPath, [file, ...args], { stdio: ["pipe", "pipe", "pipe"] })
  child.stdin.on("error", () => {})
  return child
}

export const readJsonLines = (file: string): Array<Record<string, unknown>> =>
  readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as Record<string, unknown>)
