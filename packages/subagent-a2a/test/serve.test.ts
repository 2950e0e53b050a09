import { type Message, Role, TaskState } from "@a2a-js/sdk"
import { ClientFactory } from "@a2a-js/sdk/client"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { join } from "node:path"
import { serveA2a } from "../src/serve.ts"
import { dshHost } from "./adk-support.ts"
import { tempDir } from "./support.ts"

// @dsh/subagent-a2a/serve as the SDK's own v1.0 client sees it: send, get-task, streaming send, cancel-task.

const userMessage = (text: string): Message => ({
  messageId: crypto.randomUUID(),
  contextId: "",
  taskId: "",
  role: Role.ROLE_USER,
  parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: []
})

const served = Effect.gen(function*() {
  const home = tempDir("dsh-a2a-serve-home-")
  const script = {
    rules: [
      { when: { lastUser: "^hang" }, reply: { hang: true } },
      { reply: { text: "dsh did: {{lastUser}}", usage: { input: 4, output: 6 } } }
    ]
  }
  const { url } = yield* serveA2a({ host: "127.0.0.1", port: 0, contextsDir: join(home, "a2a", "contexts"), create: { cwd: tempDir("dsh-a2a-serve-cwd-") } }).pipe(
    Effect.provide(dshHost(home, script))
  )
  const client = yield* Effect.promise(() => new ClientFactory().createFromUrl(url))
  return { url, client }
})

describe("serveA2a: a dsh host as an A2A agent", () => {
  it.live("send, then get-task: the turn's result is the artifact, its usage the metadata", () =>
    Effect.gen(function*() {
      const { client } = yield* served
      const answer = yield* Effect.promise(() => client.sendMessage({ tenant: "", message: userMessage("tidy up"), configuration: undefined, metadata: undefined }))
      assert.isTrue("id" in answer && !("messageId" in answer), "a task")
      if (!("id" in answer) || "messageId" in answer) return
      const task = yield* Effect.promise(() => client.getTask({ tenant: "", id: answer.id }))
      assert.strictEqual(task.status?.state, TaskState.TASK_STATE_COMPLETED)
      assert.strictEqual(task.artifacts[0]?.parts[0]?.content?.$case === "text" ? task.artifacts[0].parts[0].content.value : "", "dsh did: tidy up")
      assert.deepStrictEqual(task.metadata?.usage, { inputTokens: 4, outputTokens: 6, totalTokens: 10 })
      assert.strictEqual(task.metadata?.dshStatus, "completed")
    }).pipe(Effect.scoped), 30_000)

  it.live("cancel-task during a streamed turn: the turn is cancelled and the task ends canceled", () =>
    Effect.gen(function*() {
      const { client } = yield* served
      const states = yield* Effect.promise(async () => {
        const seen: Array<TaskState> = []
        let taskId = ""
        for await (const ev of client.sendMessageStream({ tenant: "", message: userMessage("hang on"), configuration: undefined, metadata: undefined })) {
          const p = ev.payload
          if (p?.$case === "task") taskId = p.value.id
          if (p?.$case === "statusUpdate" && p.value.status !== undefined) {
            seen.push(p.value.status.state)
            // Working: the turn waits on its model; cancel it.
            if (p.value.status.state === TaskState.TASK_STATE_WORKING) await client.cancelTask({ tenant: "", id: taskId, metadata: undefined })
          }
        }
        const after = await client.getTask({ tenant: "", id: taskId })
        return { seen, after: after.status?.state }
      })
      assert.strictEqual(states.seen.at(-1), TaskState.TASK_STATE_CANCELED)
      assert.strictEqual(states.after, TaskState.TASK_STATE_CANCELED)
    }).pipe(Effect.scoped), 30_000)
})
