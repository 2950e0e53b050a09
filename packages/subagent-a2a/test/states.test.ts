import { Role, type Task, TaskState } from "@a2a-js/sdk"
import type { AgentExecutor } from "@a2a-js/sdk/server"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Schedule } from "effect"
import { makeEnv, serveSdkAgent, type TestEnv } from "./support.ts"

/** The assistant text in a child's transcript so far. */
const transcriptText = (env: TestEnv, handle: string) =>
  env.subagents.tree.session!.child(handle).pipe(
    Effect.flatMap((s) => s.transcript.read),
    Effect.map((r) => r.records.flatMap((x) => (x.type === "message" && x.message.role === "assistant" ? [x.message.content] : [])).join("\n")),
    Effect.orElseSucceed(() => "")
  )

const part = (content: NonNullable<Task["artifacts"][number]["parts"][number]["content"]>, filename = "") => ({ content, metadata: undefined, filename, mediaType: "" })

/**
 * An agent on the SDK's own server classes that ends in the state its prompt names (`reject`,
 * `cancel`, `auth`), answers `mixed` with text, data and a file and no usage, and waits on
 * `hang` until cancel-task (recording it).
 */
const statesAgent = () => {
  const cancelled: Array<string> = []
  const waiting = new Map<string, () => void>()
  const executor: AgentExecutor = {
    execute: async (ctx, bus) => {
      const prompt = ctx.userMessage.parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("")
      const say = (state: TaskState, words?: string) =>
        bus.publish({
          kind: "statusUpdate",
          data: {
            taskId: ctx.taskId,
            contextId: ctx.contextId,
            status: { state, timestamp: undefined, message: words === undefined ? undefined : { messageId: `${ctx.taskId}-${state}`, contextId: ctx.contextId, taskId: ctx.taskId, role: Role.ROLE_AGENT, parts: [part({ $case: "text", value: words })], metadata: undefined, extensions: [], referenceTaskIds: [] } },
            metadata: undefined
          }
        })
      bus.publish({ kind: "task", data: ctx.task ?? { id: ctx.taskId, contextId: ctx.contextId, artifacts: [], history: [ctx.userMessage], metadata: undefined, status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: undefined } } })
      say(TaskState.TASK_STATE_WORKING, prompt === "hang" ? "holding on" : undefined)
      if (prompt === "hang") {
        await new Promise<void>((ok) => waiting.set(ctx.taskId, ok))
        say(TaskState.TASK_STATE_CANCELED)
      } else if (prompt === "reject") say(TaskState.TASK_STATE_REJECTED, "not my job")
      else if (prompt === "cancel") say(TaskState.TASK_STATE_CANCELED, "called off")
      else if (prompt === "auth") say(TaskState.TASK_STATE_AUTH_REQUIRED, "sign in at https://example.test/login")
      else {
        bus.publish({
          kind: "artifactUpdate",
          data: {
            taskId: ctx.taskId,
            contextId: ctx.contextId,
            append: false,
            lastChunk: true,
            metadata: undefined,
            artifact: {
              artifactId: "a1",
              name: "report",
              description: "",
              metadata: undefined,
              extensions: [],
              parts: [part({ $case: "text", value: "the numbers:" }), part({ $case: "data", value: { total: 3, ok: true } }), part({ $case: "url", value: "https://example.test/r.csv" }, "r.csv")]
            }
          }
        })
        say(TaskState.TASK_STATE_COMPLETED)
      }
      bus.finished()
    },
    cancelTask: async (taskId) => {
      cancelled.push(taskId)
      waiting.get(taskId)?.()
    }
  }
  return { executor, cancelled }
}

describe("subagent-a2a: task states, parts and stop", () => {
  for (const streaming of [true, false]) {
    it.live(`${streaming ? "streaming" : "polled"}: rejected is failed, canceled is cancelled, auth-required asks; data and files; no usage`, () =>
      Effect.gen(function*() {
        const agent = statesAgent()
        const server = yield* serveSdkAgent({ streaming, executor: agent.executor })
        const env = yield* makeEnv([{ name: "states", url: server.url, description: "Knows every state." }])
        const [type] = yield* env.subagents.availableTypes(env.parent)
        // `description` overrides the card's.
        assert.include(type?.description ?? "", "Knows every state.")
        assert.notInclude(type?.description ?? "", "repeats what it is told")
        const run = (prompt: string) => env.subagents.spawn({ prompt, description: prompt, agent: "a2a:states" }, env.parent)

        const rejected = yield* run("reject")
        assert.strictEqual(rejected.status, "failed")
        assert.include(rejected.notes ?? "", "a2a:states: the agent rejected the task: not my job")

        const cancelled = yield* run("cancel")
        assert.strictEqual(cancelled.status, "cancelled", cancelled.notes)

        const auth = yield* run("auth")
        assert.strictEqual(auth.status, "completed", auth.notes)
        assert.strictEqual(auth.output, "sign in at https://example.test/login")
        assert.include(auth.notes ?? "", "the agent asks for authentication: answer it with send_message")

        const mixed = yield* run("mixed")
        assert.strictEqual(mixed.status, "completed", mixed.notes)
        assert.strictEqual(mixed.output, `the numbers:\n{"total":3,"ok":true}\n[file r.csv: https://example.test/r.csv]`)
        assert.strictEqual(mixed.usage.totalTokens, 0)
        assert.include(mixed.notes ?? "", "the agent reported no usage")
      }).pipe(Effect.scoped), 30_000)
  }

  it.live("stop sends cancel-task and the child ends cancelled", () =>
    Effect.gen(function*() {
      const agent = statesAgent()
      const server = yield* serveSdkAgent({ streaming: true, executor: agent.executor })
      const env = yield* makeEnv([{ name: "states", url: server.url }])
      const fiber = yield* env.subagents.spawn({ prompt: "hang", description: "hang", agent: "a2a:states" }, env.parent).pipe(Effect.forkChild)
      // Stopped once the child has the task (its working message is in its transcript): cancel-task needs the task's id.
      const [child] = yield* Effect.sync(() => env.subagents.list(env.parent.handle)).pipe(
        Effect.repeat({ schedule: Schedule.spaced("20 millis"), until: (l) => l.length > 0, times: 500 })
      )
      assert.isDefined(child)
      yield* transcriptText(env, child!.handle).pipe(
        Effect.repeat({ schedule: Schedule.spaced("20 millis"), until: (t) => t.includes("holding on"), times: 500 })
      )
      yield* env.subagents.stop(child!.handle, env.parent.handle)
      const r = yield* Fiber.join(fiber)
      assert.strictEqual(r.status, "cancelled", r.notes)
      assert.strictEqual(agent.cancelled.length, 1)
    }).pipe(Effect.scoped), 30_000)

  it.live("the lane, the depth limit and the per-session cap hold for a2a children as for any", () =>
    Effect.gen(function*() {
      const agent = statesAgent()
      const server = yield* serveSdkAgent({ streaming: true, executor: agent.executor })
      const env = yield* makeEnv([{ name: "states", url: server.url }], {}, { maxConcurrent: 1, maxChildren: 3, maxDepth: 1 })
      // Lane of one: a second child waits, visibly queued, while the first holds the slot.
      const first = yield* env.subagents.spawnBackground({ prompt: "hang", description: "one", agent: "a2a:states" }, env.parent)
      yield* transcriptText(env, first.handle).pipe(Effect.repeat({ schedule: Schedule.spaced("20 millis"), until: (t) => t.includes("holding on"), times: 500 }))
      const second = yield* env.subagents.spawnBackground({ prompt: "mixed", description: "two", agent: "a2a:states" }, env.parent)
      assert.strictEqual(env.subagents.list(env.parent.handle).find((d) => d.handle === second.handle)?.status, "queued")
      yield* env.subagents.stop(first.handle, env.parent.handle)
      const [done] = yield* env.subagents.wait(env.parent.handle, [second.handle], "20 seconds")
      assert.strictEqual(done?.status, "completed")

      // Depth: a child (depth 1) of a tree limited to depth 1 may not delegate.
      const deep = yield* env.subagents.spawn({ prompt: "mixed", description: "deep", agent: "a2a:states" }, { ...env.parent, handle: first.handle, depth: 1 }).pipe(Effect.flip)
      assert.include(deep.message, "nesting depth limit reached (1)")

      // Per session: the third child is admitted, a fourth is refused.
      yield* env.subagents.spawn({ prompt: "mixed", description: "three", agent: "a2a:states" }, env.parent)
      const refused = yield* env.subagents.spawn({ prompt: "mixed", description: "four", agent: "a2a:states" }, env.parent).pipe(Effect.flip)
      assert.include(refused.message, "the limit (3)")
    }).pipe(Effect.scoped), 30_000)
})
