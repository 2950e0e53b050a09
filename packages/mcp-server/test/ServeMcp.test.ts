import { assert, describe, it } from "@effect/vitest"
import { AgentHost } from "@dsh/agent"
import { type Events, Usage } from "@dsh/core"
import { Tool, Toolbox } from "@dsh/tools"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { Deferred, Effect, Fiber } from "effect"
import { PassThrough } from "node:stream"
import * as z from "zod"
import { LineTransport, ServeMcp, TranscriptUri } from "../src/index.ts"

const session = { id: "s1", agent: "main", cwd: "/tmp", model: "scripted", status: "idle", createdAt: "", updatedAt: "" }

/**
 * A host whose main agent has a `subagent` that "runs" coder-1: it announces the child on the
 * call's turn, streams two deltas through the host's child listener, and answers. `Read` is a
 * tool of the main agent an MCP client is not offered.
 */
const fakeHost = (stopped: Array<string>): AgentHost.AgentHostShape => {
  let opened: AgentHost.HostOpenMainOptions | undefined
  const subagent = Tool.defineTool({
    name: "subagent",
    description: "delegate",
    parameters: z.object({ prompt: z.string().describe("the task") }),
    execute: (p, context) =>
      Effect.gen(function*() {
        yield* context.turn?.emit({ type: "subagent-start", handle: "coder-1", agent: "coder", provider: "spawn", runId: "r1", background: false, description: "d" }) ?? Effect.void
        for (const text of ["hello ", "world"]) yield* opened?.onChildEvent?.("coder-1", { type: "text-delta", text } satisfies Events.AgentEvent) ?? Effect.void
        return `did: ${p.prompt}`
      })
  })
  const read = Tool.defineTool({ name: "Read", description: "read", parameters: z.object({}), execute: () => Effect.succeed("") })
  const unused = Effect.die("not used by serveMcp")
  return {
    createSession: () => Effect.succeed(session),
    loadSession: () => unused,
    listSessions: unused,
    prompt: () => unused,
    sendToChild: () => unused,
    listChildren: () => Effect.succeed([{ name: "coder-1", agent: "coder", provider: "spawn", status: "completed", parent: "main", depth: 1, usage: Usage.emptyUsage }]),
    stopChild: ({ handle }) => Effect.sync(() => (stopped.push(handle), [])),
    openMain: (options) =>
      Effect.sync(() => {
        opened = options
        return {
          sessionId: session.id,
          cwd: session.cwd,
          toolbox: Toolbox.make({ tools: [subagent, read, ...(options.tools ?? [])] }),
          governed: (effect) => effect,
          childTranscript: (handle) => Effect.succeed([{ seq: 1, ts: "", type: "notice", level: "info", message: `transcript of ${handle}` }])
        }
      })
  }
}

/** The server on one pair of in-memory streams, an SDK client on the other ends. */
const connected = (stopped: Array<string>) =>
  Effect.gen(function*() {
    const toServer = new PassThrough()
    const toClient = new PassThrough()
    const served = yield* Effect.forkChild(
      ServeMcp.serveMcp({ input: toServer, output: toClient, serverInfo: { name: "dsh", version: "0" }, create: { cwd: "/tmp" } }).pipe(
        Effect.provideService(AgentHost.AgentHost, fakeHost(stopped))
      )
    )
    const client = new Client({ name: "test", version: "0" })
    yield* Effect.promise(() => client.connect(LineTransport.make(toClient, toServer)))
    return { client, served, end: () => toServer.end() }
  })

describe("serveMcp", () => {
  it.live("offers the subagent tools only, runs a call through the main agent's toolbox with progress, and stops children at the end", () =>
    Effect.gen(function*() {
      const stopped: Array<string> = []
      const { client, served, end } = yield* connected(stopped)
      const { tools } = yield* Effect.promise(() => client.listTools())
      assert.deepStrictEqual(tools.map((t) => t.name), ["subagent", "stop"])
      assert.strictEqual(tools[0]!.inputSchema.type, "object")

      const progress: Array<string> = []
      const result = yield* Effect.promise(() =>
        client.callTool({ name: "subagent", arguments: { prompt: "x" } }, undefined, { onprogress: (p) => void progress.push(p.message ?? "") })
      )
      assert.deepStrictEqual(result.content, [{ type: "text", text: "did: x" }])
      assert.deepStrictEqual(progress, ["hello ", "hello world"])

      const invalid = yield* Effect.promise(() => client.callTool({ name: "subagent", arguments: {} }))
      assert.isTrue(invalid.isError)
      const hidden = yield* Effect.promise(() => client.callTool({ name: "Read", arguments: {} }))
      assert.isTrue(hidden.isError)

      const { resources } = yield* Effect.promise(() => client.listResources())
      assert.deepStrictEqual(resources.map((r) => r.uri), ["dsh://s1/coder-1/transcript"])
      const read = yield* Effect.promise(() => client.readResource({ uri: resources[0]!.uri }))
      assert.include((read.contents[0] as { text: string }).text, "transcript of coder-1")
      const missing = yield* Effect.promise(() => client.readResource({ uri: "dsh://other/coder-1/transcript" }).then(() => "read", (e: Error) => e.message))
      assert.include(missing, "unknown resource")

      // The input's end is the connection's end: the server returns after stopping every child.
      end()
      yield* Fiber.join(served)
      assert.deepStrictEqual(stopped, ["all"])
    }))

  it.live("answers lines that are not JSON-RPC with errors, and keeps serving", () =>
    Effect.gen(function*() {
      const input = new PassThrough()
      const output = new PassThrough()
      const transport = LineTransport.make(input, output)
      const got = yield* Deferred.make<unknown>()
      transport.onmessage = (message) => void Effect.runSync(Deferred.succeed(got, message))
      yield* Effect.promise(() => transport.start())
      const lines: Array<string> = []
      output.on("data", (c: Buffer) => lines.push(...c.toString().split("\n").filter((l) => l !== "")))
      input.write("not json\n{\"id\":3,\"method\":1}\n{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":4}\n")
      assert.deepStrictEqual(yield* Deferred.await(got), { jsonrpc: "2.0", method: "ping", id: 4 })
      assert.deepStrictEqual(lines.map((l) => JSON.parse(l) as unknown), [
        { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: the line is not JSON (send one JSON-RPC 2.0 message per line)" } },
        {
          jsonrpc: "2.0",
          id: 3,
          error: { code: -32600, message: "Invalid Request: not a JSON-RPC 2.0 message (it needs jsonrpc: \"2.0\" and a string method, or a result or error for an id)" }
        }
      ])
    }))

  it("transcript URIs round-trip, handles encoded", () => {
    assert.deepStrictEqual(TranscriptUri.parseTranscriptUri(TranscriptUri.transcriptUri("s1", "codex-1/main")), { sessionId: "s1", handle: "codex-1/main" })
    assert.isUndefined(TranscriptUri.parseTranscriptUri("dsh://s1/coder-1"))
  })
})
