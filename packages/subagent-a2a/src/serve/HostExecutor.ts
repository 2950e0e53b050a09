import { type Message, Role, type Task, TaskState } from "@a2a-js/sdk"
import type { AgentExecutor, ExecutionEventBus } from "@a2a-js/sdk/server"
import type { AgentHost } from "@dsh/agent"
import { Asker } from "@dsh/tools"
import { Deferred, Effect } from "effect"
import { mkdir, readFile, rename, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { messageText } from "../internal/TaskView.ts"
import { cancelledAnswer, optedIn, questionMessage, questionMetadata, readAnswer } from "./PermissionQuestions.ts"

const text = (value: string) => ({ content: { $case: "text" as const, value }, metadata: undefined, filename: "", mediaType: "text/plain" })

const agentMessage = (taskId: string, contextId: string, say: string, metadata?: Record<string, unknown>): Message => ({
  messageId: `${taskId}-${Date.now()}`,
  contextId,
  taskId,
  role: Role.ROLE_AGENT,
  parts: [text(say)],
  metadata,
  extensions: [],
  referenceTaskIds: []
})

/** Where each A2A `contextId`'s dsh session is recorded, so a restarted server continues it. */
const contextFile = (dir: string, contextId: string) => join(dir, `${encodeURIComponent(contextId)}.json`)

const sessionOf = async (dir: string, contextId: string): Promise<string | undefined> => {
  try {
    const saved = JSON.parse(await readFile(contextFile(dir, contextId), "utf8")) as { sessionId?: unknown }
    return typeof saved.sessionId === "string" ? saved.sessionId : undefined
  } catch {
    return undefined
  }
}

const recordSession = async (dir: string, contextId: string, sessionId: string) => {
  await mkdir(dir, { recursive: true, mode: 0o700 })
  const file = contextFile(dir, contextId)
  await writeFile(`${file}.tmp`, JSON.stringify({ contextId, sessionId }), { mode: 0o600 })
  await rename(`${file}.tmp`, file)
}

const stateOf = (result: AgentHost.HostPromptResult): TaskState =>
  result.status === "completed" ? TaskState.TASK_STATE_COMPLETED : result.status === "cancelled" ? TaskState.TASK_STATE_CANCELED : TaskState.TASK_STATE_FAILED

/** Publishes a task status, with the agent saying `say` when there is something to say. */
const status = (bus: ExecutionEventBus, taskId: string, contextId: string, state: TaskState, say?: string, metadata?: Record<string, unknown>, sayMetadata?: Record<string, unknown>) =>
  bus.publish({
    kind: "statusUpdate",
    data: {
      taskId,
      contextId,
      status: { state, message: say === undefined || say === "" ? undefined : agentMessage(taskId, contextId, say, sayMetadata), timestamp: new Date().toISOString() },
      metadata
    }
  })

/** A turn in flight on a task: the bus of the task's latest request, and the question it waits on. */
interface LiveTask {
  bus: ExecutionEventBus
  question: { readonly question: Asker.PermissionQuestion; readonly answer: Deferred.Deferred<Asker.PermissionAnswer> } | undefined
  /** The requests waiting on the turn: woken when it asks or ends. */
  readonly waiters: Array<() => void>
  readonly cancel: Deferred.Deferred<void>
}

/** A request waits on the turn until it asks or ends. */
const waitOn = (task: LiveTask): Promise<void> => new Promise((ok) => void task.waiters.push(ok))

const wake = (task: LiveTask) => {
  for (const ok of task.waiters.splice(0)) ok()
}

/**
 * dsh's main agent as an A2A executor: each `contextId` is one dsh session (created on its
 * first message, recorded under `contextsDir`), each message one turn of it with its
 * subagents. The turn's result is the task's artifact; its usage is the final status's
 * metadata. Cancel-task cancels the turn. Host errors are failed tasks.
 *
 * A request that activates the permission-questions extension gets an asker of its own task:
 * a question ends the request with the task `input-required` (the turn waits), the client's next
 * message on that task answers it and waits on the rest of the turn, and a cancel-task denies it.
 */
export const makeHostExecutor = (options: {
  readonly host: AgentHost.AgentHostShape
  readonly contextsDir: string
  readonly create: { readonly cwd: string; readonly agent?: string | undefined; readonly model?: string | undefined }
  /** Runs an Effect in the server's scope (with its services). */
  readonly run: <A, E>(effect: Effect.Effect<A, E>) => Promise<A>
}): AgentExecutor => {
  const live = new Map<string, LiveTask>()
  const ask = (task: LiveTask, taskId: string, contextId: string, question: Asker.PermissionQuestion, prefix = "") =>
    status(task.bus, taskId, contextId, TaskState.TASK_STATE_INPUT_REQUIRED, prefix + questionMessage(question), undefined, questionMetadata(question))
  /**
   * The asker of one task: publishes the question on the task's current bus and waits for the
   * answer. A background child asking after its task ended has no one to ask: a denial.
   */
  const taskAsker = (task: LiveTask, taskId: string, contextId: string): Asker.AskerShape => ({
    ask: (question) =>
      Effect.gen(function*() {
        if (live.get(taskId) !== task) return { allow: false, by: "none", reason: `${question.subject} needs approval (${question.reason}) and the A2A task that could be asked has ended` }
        const answer = yield* Deferred.make<Asker.PermissionAnswer>()
        task.question = { question, answer }
        ask(task, taskId, contextId, question)
        wake(task)
        return yield* Deferred.await(answer)
      }).pipe(Effect.ensuring(Effect.sync(() => (task.question = undefined))))
  })
  /** The turn, detached from the request that started it: it publishes on whichever bus is current. */
  const runTurn = async (task: LiveTask, taskId: string, contextId: string, prompt: string, asker: Asker.AskerShape | undefined) => {
    try {
      const result = await options.run(Effect.gen(function*() {
        const known = yield* Effect.promise(() => sessionOf(options.contextsDir, contextId))
        const sessionId = known ?? (yield* options.host.createSession(options.create)).id
        if (known === undefined) yield* Effect.promise(() => recordSession(options.contextsDir, contextId, sessionId))
        const turn = options.host.prompt({ sessionId, prompt, cancel: Deferred.await(task.cancel) })
        return yield* (asker === undefined ? turn : Effect.provideService(turn, Asker.Asker, asker))
      }).pipe(Effect.result))
      if (result._tag === "Failure") return status(task.bus, taskId, contextId, TaskState.TASK_STATE_FAILED, result.failure.message)
      const r = result.success
      if (r.result !== "") {
        task.bus.publish({
          kind: "artifactUpdate",
          data: {
            taskId,
            contextId,
            artifact: { artifactId: `${taskId}-result`, name: "result", description: "", parts: [text(r.result)], metadata: undefined, extensions: [] },
            append: false,
            lastChunk: true,
            metadata: undefined
          }
        })
      }
      const usage = { inputTokens: r.usage.inputTokens, outputTokens: r.usage.outputTokens, totalTokens: r.usage.totalTokens }
      status(task.bus, taskId, contextId, stateOf(r), r.status === "completed" ? undefined : (r.error ?? r.status), { usage, dshSessionId: r.sessionId, dshStatus: r.status })
    } catch (e) {
      status(task.bus, taskId, contextId, TaskState.TASK_STATE_FAILED, e instanceof Error ? e.message : String(e))
    } finally {
      live.delete(taskId)
      task.bus.finished()
      wake(task)
    }
  }
  return {
    execute: async (ctx, bus) => {
      const { taskId, contextId } = ctx
      const first: Task = ctx.task ?? {
        id: taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
        artifacts: [],
        history: [ctx.userMessage],
        metadata: undefined
      }
      bus.publish({ kind: "task", data: first })
      const running = live.get(taskId)
      if (running !== undefined) {
        // A message on a task whose turn is in flight: the answer to its question, if it asked;
        // either way this request follows the rest of the turn.
        running.bus = bus
        const open = running.question
        if (open !== undefined) {
          const answer = readAnswer(ctx.userMessage, open.question)
          if (answer === undefined) {
            ask(running, taskId, contextId, open.question, `Not understood: ${JSON.stringify(messageText(ctx.userMessage).slice(0, 80))}. `)
            return
          }
          status(bus, taskId, contextId, TaskState.TASK_STATE_WORKING)
          const waiting = waitOn(running)
          Deferred.doneUnsafe(open.answer, Effect.succeed(answer))
          return waiting
        }
        status(bus, taskId, contextId, TaskState.TASK_STATE_WORKING)
        return waitOn(running)
      }
      status(bus, taskId, contextId, TaskState.TASK_STATE_WORKING)
      const task: LiveTask = { bus, question: undefined, waiters: [], cancel: Deferred.makeUnsafe<void>() }
      live.set(taskId, task)
      const waiting = waitOn(task)
      const asker = optedIn(ctx.context.activatedExtensions, ctx.userMessage) ? taskAsker(task, taskId, contextId) : undefined
      void runTurn(task, taskId, contextId, messageText(ctx.userMessage), asker)
      return waiting
    },
    cancelTask: async (taskId, bus) => {
      const task = live.get(taskId)
      if (task !== undefined) {
        // A turn in flight ends `cancelled` (its own final status, on this bus); an open question is a denial.
        task.bus = bus
        if (task.question !== undefined) Deferred.doneUnsafe(task.question.answer, Effect.succeed(cancelledAnswer(task.question.question)))
        return void Deferred.doneUnsafe(task.cancel, Effect.void)
      }
      // One that is gone is confirmed at once.
      bus.publish({ kind: "statusUpdate", data: { taskId, contextId: "", status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date().toISOString() }, metadata: undefined } })
      bus.finished()
    }
  }
}
