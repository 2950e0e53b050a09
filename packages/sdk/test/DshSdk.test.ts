import { assert, describe, it } from "vitest"
import { spawn } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { type Methods, Protocol, type SdkError, createSdkClient } from "../src/index.ts"
import { DSH_MAIN, tempDir } from "./support.ts"

/** A scripted model: echoes, hangs on request. */
const script = {
  name: "sdk-e2e",
  rules: [
    { when: { lastUser: "^hang" }, reply: { text: "", hang: true } },
    { when: { lastUser: "^(.*)$" }, reply: { text: "you said {{1}}", usage: { input: 7, output: 3 } } }
  ]
}

const setup = () => {
  const home = tempDir("dsh-sdk-home-")
  const file = join(home, "script.json")
  writeFileSync(file, JSON.stringify(script))
  return { home, model: `scripted:${file}` }
}

describe("dsh sdk (the real server, through the Promise client)", () => {
  it("creates, prompts with streamed events, lists, loads and cancels; children.send of an unknown child is refused", async () => {
    const { home, model } = setup()
    const client = await createSdkClient({
      command: process.execPath,
      args: [DSH_MAIN, "sdk", "--model", model],
      cwd: home,
      env: { DSH_HOME: home }
    })
    try {
      assert.strictEqual(client.server.serverInfo.name, "dsh")
      assert.strictEqual(client.server.protocolVersion, 1)
      const session = await client.createSession()
      assert.strictEqual(session.model, model)
      const events: Array<Methods.SessionEvent> = []
      const result = await client.prompt({ sessionId: session.id, prompt: "hello there" }, { onEvent: (e) => void events.push(e) })
      assert.strictEqual(result.status, "completed")
      assert.strictEqual(result.result, "you said hello there")
      assert.deepStrictEqual(result.totalUsage, { inputTokens: 7, outputTokens: 3, totalTokens: 10 })
      const types = events.map((e) => e.event.type)
      assert.includeMembers(types, ["turn-start", "text-delta", "usage", "message", "turn-end"])
      assert.strictEqual(types.at(-1), "turn-end")
      assert.deepStrictEqual((await client.listSessions()).map((s) => s.id), [session.id])
      const loaded = await client.loadSession(session.id)
      assert.strictEqual(loaded.turns, 1)
      assert.deepStrictEqual(await client.listChildren(session.id), [])
      const hanging = client.prompt({ sessionId: session.id, prompt: "hang on" })
      let cancelled = false
      while (!cancelled) cancelled = await client.cancel(session.id) // the prompt may not have started yet
      const stopped = await hanging
      assert.strictEqual(stopped.status, "cancelled")
      const send = await client.sendToChild({ sessionId: session.id, handle: "nobody-1", message: "hi" }).then(() => undefined, (e: unknown) => e as SdkError.SdkError)
      assert.strictEqual(send?.reason, "Remote")
      assert.oneOf(send?.code, [Protocol.ErrorCode.NotFound, Protocol.ErrorCode.InvalidParams, Protocol.ErrorCode.Internal, Protocol.ErrorCode.Unsupported])
    } finally {
      await client.close()
    }
  })

  it("writes only frames to stdout and exits by itself (code 0) when stdin closes, cancelling a running prompt", async () => {
    const { home, model } = setup()
    const child = spawn(process.execPath, [DSH_MAIN, "sdk", "--model", model], { cwd: home, env: { PATH: process.env.PATH ?? "", DSH_HOME: home } })
    let stdout = ""
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()))
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
    const lines = () => stdout.split("\n").filter((l) => l !== "")
    const waitFor = async (predicate: () => boolean) => {
      while (!predicate()) await new Promise((r) => setTimeout(r, 5))
    }
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 } })}\n`)
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "session.create", params: {} })}\n`)
    await waitFor(() => lines().length >= 2)
    const created = JSON.parse(lines()[1]!) as { result: { session: { id: string } } }
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 3, method: "session.prompt", params: { sessionId: created.result.session.id, prompt: "hang" } })}\n`)
    await waitFor(() => stdout.includes("\"turn-start\""))
    child.stdin.end()
    assert.strictEqual(await exited, 0)
    for (const line of lines()) assert.strictEqual((JSON.parse(line) as { jsonrpc: string }).jsonrpc, "2.0")
    assert.include(stdout, "\"status\":\"cancelled\"") // the turn ended as cancelled before the exit
  })

  it("a bad --model is refused before serving: exit 2 with the reason on stderr", async () => {
    const { home } = setup()
    const child = spawn(process.execPath, [DSH_MAIN, "sdk", "--model", "nope:x"], { cwd: home, env: { PATH: process.env.PATH ?? "", DSH_HOME: home } })
    let stderr = ""
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()))
    const code = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)))
    assert.strictEqual(code, 2)
    assert.include(stderr, "nope")
  })
})

