import * as acp from "@agentclientprotocol/sdk/unstable"
import { AgentHost } from "@dsh/agent"
import { type Events, Usage } from "@dsh/core"
import { Permissions } from "@dsh/tools"
import { Effect, Exit, Fiber } from "effect"
import { describe, expect, it } from "vitest"
import { ServeAcp } from "../src/index.ts"

// serveAcp against a fake host over an in-memory stream pair: the protocol mapping, the
// permission round trip, cancellation, replay and subagent updates, without any model.

const info = (id: string): AgentHost.HostSessionInfo => ({
  id,
  agent: "main",
  cwd: "/work",
  model: "fake:model",
  status: "idle",
  createdAt: "2026-11-29T00:00:00.000Z",
  updatedAt: "2026-11-29T00:00:00.000Z"
})

const result = (status: AgentHost.HostPromptResult["status"], text: string, error?: string): AgentHost.HostPromptResult => ({
  sessionId: "s-1",
  status,
  result: text,
  usage: Usage.make(12, 4),
  subagents: [],
  ...(error === undefined ? {} : { error })
})

const persisted: ReadonlyArray<Events.WireRecord> = ([
  { type: "turn-start", turn: 0, prompt: "earlier question" },
  { type: "message", message: { role: "user", content: "earlier question" } },
  { type: "message", message: { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "Read", arguments: "{\"path\":\"a.txt\"}" }] } },
  { type: "tool-call", id: "c1", name: "Read", input: "{\"path\":\"a.txt\"}" },
  { type: "tool-result", id: "c1", name: "Read", output: "1\tA", isError: false, durationMs: 1 },
  { type: "message", message: { role: "assistant", content: "earlier answer" } },
  { type: "turn-end", turn: 0, status: "completed", result: "earlier answer", usage: Usage.emptyUsage, durationMs: 5 }
] satisfies ReadonlyArray<Events.AgentEvent>).map((e, seq) => ({ ...e, seq, ts: "2026-11-29T00:00:00.000Z" }))

/** What the fake agent does for each prompt text. */
const fakeHost = (): AgentHost.AgentHostShape & { prompts: Array<string> } => {
  const prompts: Array<string> = []
  return {
    prompts,
    createSession: () => Effect.succeed(info("s-1")),
    loadSession: (id) => id === "old" ? Effect.succeed({ ...info("old"), records: persisted }) : Effect.fail(new AgentHost.HostError({ reason: "NotFound", message: `no session ${id}` })),
    listSessions: Effect.succeed([info("s-1")]),
    // No continuation manager: children cannot be continued or stopped here.
    sendToChild: () => Effect.fail(new AgentHost.HostError({ reason: "Unsupported", message: "this host cannot continue children" })),
    stopChild: () => Effect.fail(new AgentHost.HostError({ reason: "Unsupported", message: "this host cannot stop children" })),
    listChildren: () => Effect.succeed([]),
    prompt: ({ prompt, onEvent = () => Effect.void, onChildEvent = () => Effect.void, cancel }) =>
      Effect.gen(function*() {
        prompts.push(prompt)
        yield* onEvent({ type: "turn-start", turn: 0, prompt })
        yield* onEvent({ type: "step-start", turn: 0, step: 0 })
        switch (prompt) {
          case "hello":
            yield* onEvent({ type: "text-delta", text: "Hel" })
            yield* onEvent({ type: "text-delta", text: "lo!" })
            yield* onEvent({ type: "usage", model: "fake:model", usage: Usage.make(12, 4) })
            return result("completed", "Hello!")
          case "write": {
            yield* onEvent({ type: "tool-call", id: "w1", name: "Write", input: "{\"path\":\"x.txt\",\"content\":\"x\"}" })
            // As a Toolbox does: the Permissions of the calling fiber (serveAcp's, asking the client).
            const permissions = yield* Permissions.Permissions
            const decision = yield* permissions.decide({
              agent: "main",
              cwd: "/work",
              subject: { tool: "Write", kind: "edit", specifier: "x.txt", match: "path", insideCwd: true },
              summary: "Write x.txt",
              input: { path: "x.txt" }
            })
            const output = decision.allowed ? "Created x.txt" : `Error: permission denied: ${decision.reason}`
            yield* onEvent({ type: "tool-result", id: "w1", name: "Write", output, isError: !decision.allowed, durationMs: 1 })
            yield* onEvent({ type: "text-delta", text: output })
            return result("completed", output)
          }
          case "hang":
            // Like the real host: a cancel stops the turn, which answers with what it spent so far.
            yield* onEvent({ type: "text-delta", text: "thinking..." })
            yield* onEvent({ type: "usage", model: "fake:model", usage: Usage.make(5, 1) })
            yield* cancel ?? Effect.never
            return { ...result("cancelled", "thinking..."), usage: Usage.make(5, 1) }
          case "loop":
            return result("failed", "", "stopped after 50 model calls without a final answer (step limit)")
          case "boom":
            return result("failed", "", "openai: upstream exploded")
          case "delegate": {
            yield* onEvent({ type: "subagent-start", handle: "explore-1", agent: "explore", provider: "spawn", runId: "r1", background: false, description: "look around" })
            yield* onChildEvent("explore-1", { type: "turn-start", turn: 0, prompt: "look around" })
            yield* onChildEvent("explore-1", { type: "text-delta", text: "found it" })
            yield* onEvent({ type: "subagent-end", handle: "explore-1", runId: "r1", status: "completed", usage: Usage.make(3, 1), durationMs: 9, result: "found it" })
            yield* onEvent({ type: "text-delta", text: "The child found it." })
            return result("completed", "The child found it.")
          }
          default:
            return result("completed", "")
        }
      })
  }
}

/** Starts serveAcp on one end of an in-memory pair and runs `op` as an SDK client on the other. */
const withServer = async <T>(
  host: AgentHost.AgentHostShape,
  client: acp.ClientApp,
  op: (agent: acp.ClientContext) => Promise<T>,
  contextWindow?: number
): Promise<{ value: T; ended: boolean }> => {
  const toAgent = new TransformStream<acp.AnyMessage, acp.AnyMessage>()
  const toClient = new TransformStream<acp.AnyMessage, acp.AnyMessage>()
  const fiber = Effect.runFork(ServeAcp.serveAcp({
    stream: { readable: toAgent.readable, writable: toClient.writable },
    agentInfo: { name: "dsh", version: "9.9.9" },
    contextWindow
  }).pipe(Effect.provideService(AgentHost.AgentHost, host)))
  const value = await client.connectWith({ readable: toClient.readable, writable: toAgent.writable }, op)
  await toAgent.writable.close() // the client's "stdin EOF": the server ends by itself
  const exit = await Effect.runPromise(Fiber.await(fiber))
  return { value, ended: Exit.isSuccess(exit) }
}

const collecting = () => {
  const updates: Array<acp.SessionNotification> = []
  const permissions: Array<acp.RequestPermissionRequest> = []
  let answer: acp.RequestPermissionResponse = { outcome: { outcome: "selected", optionId: "allow_once" } }
  const app = acp.client({ name: "test" })
    .onNotification(acp.methods.client.session.update, ({ params }) => void updates.push(params))
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      permissions.push(params)
      return answer
    })
  return { app, updates, permissions, answerWith: (a: acp.RequestPermissionResponse) => (answer = a) }
}

const init = (agent: acp.ClientContext, capabilities: acp.ClientCapabilities = {}) =>
  agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: capabilities })

const newSession = async (agent: acp.ClientContext) =>
  (await agent.request(acp.methods.agent.session.new, { cwd: "/work", mcpServers: [] })).sessionId

const ask = (agent: acp.ClientContext, sessionId: string, text: string) =>
  agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] })

const kinds = (updates: ReadonlyArray<acp.SessionNotification>) => updates.map((u) => u.update.sessionUpdate)

describe("serveAcp", () => {
  it("initializes, streams text and reports usage with the stop reason", async () => {
    const c = collecting()
    const { value, ended } = await withServer(fakeHost(), c.app, async (agent) => {
      const hello = await init(agent)
      const sessionId = await newSession(agent)
      return { hello, sessionId, answer: await ask(agent, sessionId, "hello") }
    })
    expect(ended).toBe(true)
    expect(value.hello.protocolVersion).toBe(acp.PROTOCOL_VERSION)
    expect(value.hello.agentCapabilities?.loadSession).toBe(true)
    expect(value.hello.agentInfo).toMatchObject({ name: "dsh", version: "9.9.9" })
    expect(value.sessionId).toBe("s-1")
    expect(value.answer).toEqual({ stopReason: "end_turn", usage: { inputTokens: 12, outputTokens: 4, totalTokens: 16 } })
    const text = c.updates.flatMap((u) => u.update.sessionUpdate === "agent_message_chunk" && u.update.content.type === "text" ? [u.update.content.text] : [])
    expect(text.join("")).toBe("Hello!")
  })

  it("sends usage_update only when the context window is known", async () => {
    const without = collecting()
    await withServer(fakeHost(), without.app, async (agent) => {
      await init(agent)
      await ask(agent, await newSession(agent), "hello")
    })
    expect(kinds(without.updates)).not.toContain("usage_update")
    const withWindow = collecting()
    await withServer(fakeHost(), withWindow.app, async (agent) => {
      await init(agent)
      await ask(agent, await newSession(agent), "hello")
    }, 128_000)
    expect(withWindow.updates.find((u) => u.update.sessionUpdate === "usage_update")?.update).toEqual({ sessionUpdate: "usage_update", used: 16, size: 128_000 })
  })

  it("asks the client before a tool that needs approval, and reports the tool run", async () => {
    const c = collecting()
    const { value } = await withServer(fakeHost(), c.app, async (agent) => {
      await init(agent)
      const sessionId = await newSession(agent)
      const first = await ask(agent, sessionId, "write")
      c.answerWith({ outcome: { outcome: "selected", optionId: "reject_once" }, _meta: { "dsh/reason": "read-only today" } })
      const second = await ask(agent, sessionId, "write")
      return { first, second }
    })
    expect(value.first.stopReason).toBe("end_turn")
    expect(c.permissions).toHaveLength(2)
    expect(c.permissions[0]?.toolCall).toMatchObject({ toolCallId: "w1", title: "Write x.txt", kind: "edit", status: "pending" })
    expect(c.permissions[0]?.options.map((o) => o.kind)).toEqual(["allow_once", "allow_always", "reject_once"])
    const calls = c.updates.filter((u) => u.update.sessionUpdate === "tool_call" || u.update.sessionUpdate === "tool_call_update")
    expect(calls.map((u) => u.update)).toMatchObject([
      { sessionUpdate: "tool_call", toolCallId: "w1", kind: "edit", status: "in_progress", locations: [{ path: "/work/x.txt" }] },
      { sessionUpdate: "tool_call_update", toolCallId: "w1", status: "completed" },
      { sessionUpdate: "tool_call", toolCallId: "w1" },
      { sessionUpdate: "tool_call_update", toolCallId: "w1", status: "failed", content: [{ type: "content", content: { type: "text", text: "Error: permission denied: read-only today" } }] }
    ])
  })

  it("a client without a permission handler means denied, with a reason", async () => {
    const updates: Array<acp.SessionNotification> = []
    const app = acp.client({ name: "bare" }).onNotification(acp.methods.client.session.update, ({ params }) => void updates.push(params))
    await withServer(fakeHost(), app, async (agent) => {
      await init(agent)
      await ask(agent, await newSession(agent), "write")
    })
    const failed = updates.find((u) => u.update.sessionUpdate === "tool_call_update")?.update
    expect(JSON.stringify(failed)).toContain("Write(x.txt) needs permission and the client could not be asked")
  })

  it("an 'always' answer holds for that call for the rest of the session", async () => {
    const c = collecting()
    c.answerWith({ outcome: { outcome: "selected", optionId: "allow_always" } })
    const { value } = await withServer(fakeHost(), c.app, async (agent) => {
      await init(agent)
      const sessionId = await newSession(agent)
      await ask(agent, sessionId, "write")
      c.answerWith({ outcome: { outcome: "selected", optionId: "reject_once" } })
      return ask(agent, sessionId, "write")
    })
    expect(value.stopReason).toBe("end_turn")
    expect(c.permissions).toHaveLength(1)
    const results = c.updates.filter((u) => u.update.sessionUpdate === "tool_call_update").map((u) => u.update)
    expect(results).toMatchObject([{ status: "completed" }, { status: "completed" }])
  })

  it("session/cancel ends a running prompt promptly with `cancelled`", async () => {
    const c = collecting()
    const { value } = await withServer(fakeHost(), c.app, async (agent) => {
      await init(agent)
      const sessionId = await newSession(agent)
      const pending = ask(agent, sessionId, "hang")
      await new Promise<void>((resolve) => {
        const check = () => (c.updates.length > 0 ? resolve() : setTimeout(check, 5))
        check()
      })
      const busy = await ask(agent, sessionId, "hello").catch((e: acp.RequestError) => e)
      await agent.notify(acp.methods.agent.session.cancel, { sessionId })
      const cancelled = await pending
      return { busy, cancelled, after: await ask(agent, sessionId, "hello") }
    })
    expect(value.busy).toBeInstanceOf(acp.RequestError)
    expect((value.busy as acp.RequestError).message).toContain("already running")
    expect(value.cancelled.stopReason).toBe("cancelled")
    // The answer to a cancel carries what the turn used so far.
    expect(value.cancelled.usage).toEqual({ inputTokens: 5, outputTokens: 1, totalTokens: 6 })
    expect(value.after.stopReason).toBe("end_turn")
  })

  it("maps the step limit to max_turn_requests and other failures to errors", async () => {
    const { value } = await withServer(fakeHost(), collecting().app, async (agent) => {
      await init(agent)
      const sessionId = await newSession(agent)
      return {
        loop: await ask(agent, sessionId, "loop"),
        boom: await ask(agent, sessionId, "boom").catch((e: acp.RequestError) => e),
        missing: await ask(agent, "nope", "hello").catch((e: acp.RequestError) => e)
      }
    })
    expect(value.loop.stopReason).toBe("max_turn_requests")
    expect(value.boom).toMatchObject({ code: -32603, message: "openai: upstream exploded" })
    expect(value.missing).toMatchObject({ code: -32002 })
  })

  it("session/load replays the persisted conversation as updates", async () => {
    const c = collecting()
    await withServer(fakeHost(), c.app, async (agent) => {
      await init(agent)
      await agent.request(acp.methods.agent.session.load, { sessionId: "old", cwd: "/work", mcpServers: [] })
    })
    expect(c.updates.every((u) => u.sessionId === "old")).toBe(true)
    expect(kinds(c.updates)).toEqual(["user_message_chunk", "tool_call", "tool_call_update", "agent_message_chunk"])
    expect(JSON.stringify(c.updates.at(-1))).toContain("earlier answer")
  })

  it("reports children with subagent updates when the client supports them", async () => {
    const c = collecting()
    await withServer(fakeHost(), c.app, async (agent) => {
      await init(agent, { subagents: {} })
      await ask(agent, await newSession(agent), "delegate")
    })
    const child = "s-1/explore-1"
    expect(c.updates.map((u) => [u.sessionId, u.update.sessionUpdate])).toEqual([
      ["s-1", "subagent_update"],
      [child, "user_message_chunk"],
      [child, "agent_message_chunk"],
      ["s-1", "subagent_update"],
      ["s-1", "agent_message_chunk"]
    ])
    expect(c.updates[0]?.update).toMatchObject({ sessionId: child, title: "explore-1 (explore)", description: "look around", state: { state: "running" } })
    expect(c.updates[3]?.update).toMatchObject({ sessionId: child, state: { state: "idle", stopReason: "end_turn", usage: { totalTokens: 4 } } })
  })

  it("without the subagent capability, children stay invisible", async () => {
    const c = collecting()
    await withServer(fakeHost(), c.app, async (agent) => {
      await init(agent)
      await ask(agent, await newSession(agent), "delegate")
    })
    expect(c.updates.map((u) => [u.sessionId, u.update.sessionUpdate])).toEqual([["s-1", "agent_message_chunk"]])
  })
})
