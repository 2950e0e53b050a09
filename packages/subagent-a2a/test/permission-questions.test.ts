import { HTTP_EXTENSION_HEADER, type Message, Role, type StreamResponse, type Task, TaskState } from "@a2a-js/sdk"
import { LEGACY_HTTP_EXTENSION_HEADER } from "@a2a-js/sdk/compat/v0_3"
import { type Client, ClientFactory, ServiceParameters, withA2AExtensions } from "@a2a-js/sdk/client"
import { AgentCatalog } from "@dsh/agent"
import { Harness } from "@dsh/harness"
import { ModelRegistry } from "@dsh/llm"
import { ScriptedAdapter } from "@dsh/llm-scripted"
import { FileSessionStore } from "@dsh/session"
import { LocalProcessLauncher } from "@dsh/subprocess"
import { Tool } from "@dsh/tools"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { join } from "node:path"
import { z } from "zod"
import { PERMISSION_QUESTIONS_EXTENSION, serveA2a } from "../src/serve.ts"
import { tempDir } from "./support.ts"

// dsh a2a's permission questions, as @a2a-js/sdk's own v1.0 client on 127.0.0.1 meets them: a
// client that activates the extension is asked (input-required) and answers on the same task.

const message = (text: string, at: { readonly taskId?: string; readonly contextId?: string } = {}, extensions: Array<string> = []): Message => ({
  messageId: crypto.randomUUID(),
  contextId: at.contextId ?? "",
  taskId: at.taskId ?? "",
  role: Role.ROLE_USER,
  parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" }],
  metadata: undefined,
  extensions,
  referenceTaskIds: []
})

const optIn = { serviceParameters: ServiceParameters.create(withA2AExtensions(PERMISSION_QUESTIONS_EXTENSION)) }

const statusText = (task: Task): string => {
  const part = task.status?.message?.parts[0]?.content
  return part?.$case === "text" ? part.value : ""
}
const resultText = (task: Task): string => {
  const part = task.artifacts[0]?.parts[0]?.content
  return part?.$case === "text" ? part.value : ""
}

/** A dsh whose main agent calls `deploy`, which the rule `ask: deploy` leaves to a person; `ran` lists the deploys that ran. */
const served = Effect.gen(function*() {
  const home = tempDir("dsh-a2a-ask-home-")
  const ran: Array<string> = []
  const deploy = Tool.defineTool({
    name: "deploy",
    description: "deploys a target",
    parameters: z.object({ target: z.string().describe("where") }),
    permission: { kind: "execute", specifier: (p) => p.target },
    execute: ({ target }) => Effect.sync(() => (ran.push(target), `deployed ${target}`))
  })
  const script = {
    rules: [
      { when: { step: 0 }, reply: { toolCalls: [{ name: "deploy", arguments: { target: "prod" } }] } },
      { reply: { text: "After deploy: {{lastTool|firstLine}}" } }
    ]
  }
  const host = Harness.layer({
    agents: () => Effect.succeed(AgentCatalog.staticCatalog({ main: { name: "lead", description: "leads", systemPrompt: "You lead.", override: false, scope: "runtime", source: "test" } })),
    backends: [],
    tools: [deploy],
    permissions: { ask: ["deploy"] },
    model: "scripted:lead"
  }).pipe(Layer.provide(Layer.mergeAll(
    FileSessionStore.layer({ home }),
    ModelRegistry.layerWith([ScriptedAdapter.make({ scripts: { lead: script } })]),
    LocalProcessLauncher.layer()
  )))
  const { url } = yield* serveA2a({ host: "127.0.0.1", port: 0, contextsDir: join(home, "a2a", "contexts"), create: { cwd: tempDir("dsh-a2a-ask-cwd-") } }).pipe(Effect.provide(host))
  const client = yield* Effect.promise(() => new ClientFactory().createFromUrl(url))
  return { url, client, ran }
})

const send = (client: Client, m: Message, options?: typeof optIn) =>
  Effect.promise(async () => {
    const answer = await client.sendMessage({ tenant: "", message: m, configuration: undefined, metadata: undefined }, options)
    if (!("id" in answer) || "messageId" in answer) throw new Error("expected a task")
    return answer
  })

/** Streams a message; the states it saw and the task's last snapshot. */
const stream = (client: Client, m: Message, options?: typeof optIn) =>
  Effect.promise(async () => {
    const states: Array<TaskState> = []
    let last: StreamResponse | undefined
    let taskId = ""
    for await (const ev of client.sendMessageStream({ tenant: "", message: m, configuration: undefined, metadata: undefined }, options)) {
      if (ev.payload?.$case === "task") taskId = ev.payload.value.id
      if (ev.payload?.$case === "statusUpdate" && ev.payload.value.status !== undefined) states.push(ev.payload.value.status.state)
      last = ev
    }
    return { states, taskId, last, task: await client.getTask({ tenant: "", id: taskId }) }
  })

describe("dsh a2a: permission questions for clients that activate the extension", () => {
  it.live("the card offers the extension; asked, the client allows: the tool runs and the task completes", () =>
    Effect.gen(function*() {
      const { url, client, ran } = yield* served
      const card = yield* Effect.promise(() => client.getAgentCard())
      assert.include(card.capabilities?.extensions.map((e) => e.uri) ?? [], PERMISSION_QUESTIONS_EXTENSION)
      // The response names the extension it activated.
      const raw = yield* Effect.promise(() =>
        fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", "a2a-version": "1.0", [HTTP_EXTENSION_HEADER]: `${PERMISSION_QUESTIONS_EXTENSION}, urn:other` },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "none" } })
        })
      )
      assert.strictEqual(raw.headers.get(HTTP_EXTENSION_HEADER), PERMISSION_QUESTIONS_EXTENSION)

      const asked = yield* send(client, message("ship it"), optIn)
      assert.strictEqual(asked.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED)
      assert.include(statusText(asked), "Permission needed: main wants to use: deploy(prod) (deploy(prod), ask: deploy)")
      assert.include(statusText(asked), `Answer "allow", "allow always" (for the rest of this conversation) or "deny"`)
      assert.deepStrictEqual(asked.status?.message?.metadata?.["dsh/permission"], {
        agent: "main", subject: "deploy(prod)", tool: "deploy", reason: "ask: deploy", summary: "deploy {\"target\":\"prod\"}", answers: ["allow", "allow always", "deny"]
      })
      assert.deepStrictEqual(ran, [], "nothing runs before the answer")
      // Nonsense is asked again; the task still waits.
      const again = yield* send(client, message("maybe later", { taskId: asked.id, contextId: asked.contextId }), optIn)
      assert.strictEqual(again.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED)
      assert.include(statusText(again), "Not understood: \"maybe later\". Permission needed")
      const done = yield* send(client, message("allow", { taskId: asked.id, contextId: asked.contextId }), optIn)
      assert.strictEqual(done.id, asked.id)
      assert.strictEqual(done.status?.state, TaskState.TASK_STATE_COMPLETED)
      assert.strictEqual(resultText(done), "After deploy: deployed prod")
      assert.deepStrictEqual(ran, ["prod"])
    }).pipe(Effect.scoped), 30_000)

  it.live("streamed, opted in by the message's extensions: denied, the model reads the denial and the task completes", () =>
    Effect.gen(function*() {
      const { client, ran } = yield* served
      const asked = yield* stream(client, message("ship it", {}, [PERMISSION_QUESTIONS_EXTENSION]))
      assert.deepStrictEqual(asked.states, [TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_INPUT_REQUIRED])
      assert.strictEqual(asked.task.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED)
      const answered = yield* stream(client, message("deny", { taskId: asked.taskId, contextId: asked.task.contextId }))
      assert.strictEqual(answered.taskId, asked.taskId)
      assert.strictEqual(answered.states.at(-1), TaskState.TASK_STATE_COMPLETED)
      assert.include(resultText(answered.task), "After deploy: Error: permission denied: deploy(prod) was denied by the A2A client")
      assert.deepStrictEqual(ran, [])
    }).pipe(Effect.scoped), 30_000)

  it.live("not opted in: no question, the call is a denial naming the rule, as before", () =>
    Effect.gen(function*() {
      const { client, ran } = yield* served
      const done = yield* send(client, message("ship it"))
      assert.strictEqual(done.status?.state, TaskState.TASK_STATE_COMPLETED)
      assert.include(resultText(done), "deploy(prod) needs approval (ask: deploy)")
      assert.deepStrictEqual(ran, [])
    }).pipe(Effect.scoped), 30_000)

  it.live("a v0.3 client opts in with X-A2A-Extensions: message/send ends input-required, its answer on the task completes it", () =>
    Effect.gen(function*() {
      const { url, ran } = yield* served
      const rpc = (params: unknown) =>
        Effect.promise(async () => {
          const res = await fetch(url, {
            method: "POST",
            headers: { "content-type": "application/json", [LEGACY_HTTP_EXTENSION_HEADER]: PERMISSION_QUESTIONS_EXTENSION },
            body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/send", params })
          })
          assert.strictEqual(res.headers.get(LEGACY_HTTP_EXTENSION_HEADER), PERMISSION_QUESTIONS_EXTENSION)
          return (await res.json() as { result: { id: string; contextId: string; status: { state: string; message?: { parts: Array<{ text?: string }> } } } }).result
        })
      const say = (text: string, at: { taskId?: string; contextId?: string } = {}) => ({ message: { kind: "message", messageId: crypto.randomUUID(), role: "user", parts: [{ kind: "text", text }], ...at } })
      const asked = yield* rpc(say("ship it"))
      assert.strictEqual(asked.status.state, "input-required")
      assert.include(asked.status.message?.parts[0]?.text ?? "", "Permission needed: main wants to use: deploy(prod)")
      const done = yield* rpc(say("allow", { taskId: asked.id, contextId: asked.contextId }))
      assert.strictEqual(done.status.state, "completed")
      assert.deepStrictEqual(ran, ["prod"])
    }).pipe(Effect.scoped), 30_000)

  it.live("cancelled while asking: the task ends canceled, the question is denied, and nothing is left waiting", () =>
    Effect.gen(function*() {
      const { client, ran } = yield* served
      const asked = yield* send(client, message("ship it"), optIn)
      assert.strictEqual(asked.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED)
      const cancelled = yield* Effect.promise(() => client.cancelTask({ tenant: "", id: asked.id, metadata: undefined }))
      assert.strictEqual(cancelled.status?.state, TaskState.TASK_STATE_CANCELED)
      assert.strictEqual((yield* Effect.promise(() => client.getTask({ tenant: "", id: asked.id }))).status?.state, TaskState.TASK_STATE_CANCELED)
      assert.deepStrictEqual(ran, [])
      // The session's one-question-at-a-time permit was given back: the next task of the same
      // conversation is asked afresh, and answered.
      const next = yield* send(client, message("ship it", { contextId: asked.contextId }), optIn)
      assert.notStrictEqual(next.id, asked.id)
      assert.strictEqual(next.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED)
      const done = yield* send(client, message("allow always", { taskId: next.id, contextId: next.contextId }), optIn)
      assert.strictEqual(done.status?.state, TaskState.TASK_STATE_COMPLETED)
      assert.deepStrictEqual(ran, ["prod"])
      // Remembered for the conversation: no question the next time.
      const third = yield* send(client, message("ship it", { contextId: asked.contextId }), optIn)
      assert.strictEqual(third.status?.state, TaskState.TASK_STATE_COMPLETED)
      assert.deepStrictEqual(ran, ["prod", "prod"])
    }).pipe(Effect.scoped), 30_000)
})
