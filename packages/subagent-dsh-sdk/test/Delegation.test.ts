import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { ProcessChecks } from "@dsh/subprocess/testing"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
// The fake lives in another workspace package that this one does not depend on; tests reach it by path.
import { FakeOpenAIServer } from "../../llm-openai/src/testing.ts"
import { childPids, DSH_MAIN, eventually, readJsonLines, tempDir } from "./support.ts"

interface WireMessage {
  readonly role: string
  readonly content?: unknown
}

const messagesOf = (request: FakeOpenAIServer.FakeRequest): ReadonlyArray<WireMessage> => (request.body as { messages: ReadonlyArray<WireMessage> }).messages

/** The latest user message and the model calls made since it, as the scripted agents see them. */
const turnOf = (request: FakeOpenAIServer.FakeRequest) => {
  const messages = messagesOf(request)
  let last = messages.length - 1
  while (last >= 0 && messages[last]!.role !== "user") last--
  const user = String(messages[last]?.content ?? "")
  return { user, step: messages.slice(last + 1).filter((m) => m.role === "assistant").length }
}

const call = (name: string, args: unknown): FakeOpenAIServer.FakeReply => ({ toolCalls: [{ name, arguments: args }], usage: { input: 3, output: 1 } })

/**
 * Three agents on one fake server: MAIN delegates to an SDK child, the child (CHILD) to an
 * in-process `explore` grandchild (GRANDCHILD). With `hang`, the grandchild's model never answers.
 */
const script = (hang: () => boolean) => (request: FakeOpenAIServer.FakeRequest): FakeOpenAIServer.FakeReply => {
  const { user, step } = turnOf(request)
  if (user.startsWith("GRANDCHILD")) return hang() ? { hang: true } : { text: "grandchild found 42", usage: { input: 5, output: 2 } }
  if (user.startsWith("CHILD AGAIN")) return { text: "the answer was still 42", usage: { input: 6, output: 1 } }
  if (user.startsWith("CHILD")) {
    return step === 0
      ? call("subagent", { agent: "explore", prompt: "GRANDCHILD find the answer", description: "find it" })
      : { text: "child says 42", usage: { input: 4, output: 2 } }
  }
  return step === 0
    ? call("subagent", { agent: "sdk:dsh", prompt: "CHILD work out the answer", description: "sdk child" })
    : { text: "main done", usage: { input: 1, output: 1 } }
}

let hangGrandchild = false
let server: FakeOpenAIServer.FakeServer
const home = tempDir("dsh-sdk-e2e-")

beforeAll(async () => {
  server = await FakeOpenAIServer.startFakeOpenAIServer({ respond: script(() => hangGrandchild) })
  // Depth 2: the SDK child (depth 1) may delegate once more, inside its own process.
  writeFileSync(join(home, "config.toml"), "[limits]\nmax_depth = 2\n")
})
afterAll(() => server.close())

const env = () => ({
  PATH: process.env.PATH ?? "",
  HOME: home,
  DSH_HOME: home,
  OPENAI_BASE_URL: server.url,
  OPENAI_API_KEY: "sk-test"
})

/** Runs `dsh` (the bundle) to completion. */
const dsh = (args: ReadonlyArray<string>) =>
  Effect.callback<{ code: number | null; stdout: string; stderr: string }>((resume) => {
    const child = spawn(process.execPath, [DSH_MAIN, ...args], { cwd: home, env: env(), stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()))
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()))
    child.on("close", (code) => resume(Effect.succeed({ code, stdout, stderr })))
  })

const onlySession = (before: ReadonlyArray<string>) => readdirSync(join(home, "sessions")).filter((s) => !before.includes(s))

describe("dsh-sdk backend end to end (dsh run parents, dsh sdk children, a local OpenAI-compatible server)", { timeout: 30_000 }, () => {
  let sessionId = ""

  it.live("a parent delegates to an SDK child that delegates to an in-process grandchild; usage rolls up; both transcripts are on disk", () =>
    Effect.gen(function*() {
      const run = yield* dsh(["run", "--allow", "subagent", "--model", "openai:fake", "--output-format", "json", "MAIN start"])
      assert.strictEqual(run.code, 0, run.stderr)
      const summary = JSON.parse(run.stdout) as { sessionId: string; status: string; result: string; subagents: Array<Record<string, string>> }
      sessionId = summary.sessionId
      assert.strictEqual(summary.status, "completed")
      assert.include(summary.result, "main done")
      assert.deepStrictEqual(summary.subagents, [{ name: "sdk-dsh-1", agent: "sdk:dsh", provider: "dsh-sdk", status: "completed" }])
      const dir = join(home, "sessions", sessionId)
      // The child's own model calls (3+1, 4+2) plus its grandchild's (5+2), rolled up into the parent's result.
      const state = JSON.parse(readFileSync(join(dir, "state.json"), "utf8")) as { subagents: Record<string, { usage: unknown; continuation: { data: { sessionId: string } } }> }
      const child = state.subagents["sdk-dsh-1"]!
      assert.deepStrictEqual(child.usage, { inputTokens: 12, outputTokens: 5, totalTokens: 17 })
      const end = readJsonLines(join(dir, "wire.jsonl")).find((r) => r.type === "subagent-end")
      assert.deepStrictEqual(end?.usage, { inputTokens: 12, outputTokens: 5, totalTokens: 17 })
      // The child's transcript (kept by the parent) and the grandchild's (kept by the child's own session).
      const childWire = readJsonLines(join(dir, "agents/sdk-dsh-1/wire.jsonl"))
      assert.deepStrictEqual(childWire.filter((r) => r.type === "turn-end").map((r) => r.result), ["child says 42"])
      assert.isTrue(childWire.some((r) => r.type === "subagent-end" && r.handle === "explore-1"))
      const childSession = join(dir, "agents/sdk-dsh-1/sessions", child.continuation.data.sessionId)
      const grandchildWire = readJsonLines(join(childSession, "agents/explore-1/wire.jsonl"))
      assert.deepStrictEqual(grandchildWire.filter((r) => r.type === "turn-end").map((r) => r.result), ["grandchild found 42"])
      assert.strictEqual(server.requests.length, 5)
    }))

  it.live("the child is continued cold after the parent process has exited, with its earlier context intact", () =>
    Effect.gen(function*() {
      assert.notStrictEqual(sessionId, "", "needs the previous test's session")
      const before = server.requests.length
      const send = yield* dsh(["subagents", "send", "sdk-dsh-1", "CHILD AGAIN what was it?", "--session", sessionId, "--json"])
      assert.strictEqual(send.code, 0, send.stderr)
      const reply = JSON.parse(send.stdout) as { status: string; output: string }
      assert.strictEqual(reply.status, "completed")
      assert.strictEqual(reply.output, "the answer was still 42")
      const request = server.requests[before]!
      const contents = messagesOf(request).map((m) => `${m.role}:${String(m.content ?? "")}`)
      assert.include(contents, "user:CHILD work out the answer")
      assert.include(contents, "assistant:child says 42")
      assert.strictEqual(contents.at(-1), "user:CHILD AGAIN what was it?")
      const turns = readJsonLines(join(home, "sessions", sessionId, "agents/sdk-dsh-1/wire.jsonl")).filter((r) => r.type === "turn-start")
      assert.deepStrictEqual(turns.map((t) => t.turn), [0, 1])
    }))

  it.live("stopping the parent stops the SDK child and its grandchild; no process remains", () =>
    Effect.gen(function*() {
      hangGrandchild = true
      const sessionsBefore = existsSync(join(home, "sessions")) ? readdirSync(join(home, "sessions")) : []
      const abortedBefore = server.aborted
      const requestsBefore = server.requests.length
      const parent = spawn(process.execPath, [DSH_MAIN, "run", "--allow", "subagent", "--model", "openai:fake", "MAIN start"], { cwd: home, env: env(), stdio: "ignore" })
      const exited = new Promise<number | null>((resolve) => parent.on("exit", (code) => resolve(code)))
      // The grandchild is waiting on the model: the whole tree is up.
      assert.isTrue(yield* eventually(() => server.requests.slice(requestsBefore).some((r) => turnOf(r).user.startsWith("GRANDCHILD"))))
      const children = childPids(parent.pid!)
      assert.lengthOf(children, 1, "the parent runs exactly one process: its SDK child")
      const descendants = children.flatMap((c) => [c, ...childPids(c)])
      parent.kill("SIGTERM")
      const code = yield* Effect.promise(() => exited)
      assert.strictEqual(code, 1) // cancelled
      assert.deepStrictEqual(yield* ProcessChecks.survivors([parent.pid!, ...descendants], 500), [])
      // The grandchild's model request was abandoned, not left running.
      assert.isTrue(yield* eventually(() => server.aborted > abortedBefore))
      const [session] = onlySession(sessionsBefore)
      const state = JSON.parse(readFileSync(join(home, "sessions", session!, "state.json"), "utf8")) as { subagents: Record<string, { status: string; continuation?: { data: { sessionId: string } } }> }
      assert.strictEqual(state.subagents["sdk-dsh-1"]?.status, "cancelled")
      const childSession = join(home, "sessions", session!, "agents/sdk-dsh-1/sessions", state.subagents["sdk-dsh-1"]!.continuation!.data.sessionId)
      const childState = JSON.parse(readFileSync(join(childSession, "state.json"), "utf8")) as { status: string; subagents: Record<string, { status: string }> }
      assert.strictEqual(childState.status, "cancelled")
      assert.strictEqual(childState.subagents["explore-1"]?.status, "cancelled")
    }))
})
