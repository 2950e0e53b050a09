import { type Message, Role, type SendMessageRequest, type StreamResponse, type Task } from "@a2a-js/sdk"
import { type Client, ClientFactory, JsonRpcTransportFactory } from "@a2a-js/sdk/client"
import { Events, Usage } from "@dsh/core"
import type { Vocabulary } from "@dsh/subagent"
import { Cause, Clock, Effect, Exit, Option, Ref } from "effect"
import { randomUUID } from "node:crypto"
import { headersOf } from "../A2aAgentConfig.ts"
import type { ResolvedA2aAgent } from "../A2aCard.ts"
import { boundedFetch, httpErrorsAsText } from "../A2aCard.ts"
import { A2aChildError } from "../A2aChildError.ts"
import type { A2aContinuation } from "../A2aContinuation.ts"
import { firstLine, TaskView } from "./TaskView.ts"

export interface RunOptions {
  readonly environment: Readonly<Record<string, string | undefined>>
  readonly pollIntervalMs: number
  readonly cancelGraceMs: number
  readonly fetch?: typeof fetch | undefined
}

const causeOf = (e: unknown): string => {
  if (!(e instanceof Error)) return String(e)
  const inner = (e as { cause?: unknown }).cause
  return firstLine(`${e.message}${inner instanceof Error ? `: ${inner.message}` : ""}`)
}

const userMessage = (text: string, saved: A2aContinuation | undefined): Message => ({
  messageId: randomUUID(),
  contextId: saved?.contextId ?? "",
  // Only a task that waits for input is answered in place; a finished one cannot be continued.
  taskId: saved?.taskId ?? "",
  role: Role.ROLE_USER,
  parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: []
})

/** What one exchange with the agent shares between its streamed and polled forms. */
interface Exchange {
  readonly client: Client
  readonly request: SendMessageRequest
  readonly view: TaskView
  readonly checkContext: (contextId: string) => Effect.Effect<void, A2aChildError>
  readonly say: (text: string | undefined) => Effect.Effect<void>
  readonly fail: (reason: A2aChildError["reason"], what: string) => (e: unknown) => A2aChildError
}

/** For an agent that does not stream: message/send, then get-task every `pollIntervalMs` until the task settles. */
const pollAnswer = (x: Exchange, pollIntervalMs: number): Effect.Effect<void, A2aChildError> =>
  Effect.gen(function*() {
    const answer = yield* Effect.tryPromise({ try: (signal) => x.client.sendMessage(x.request, { signal }), catch: x.fail("Rpc", "message/send failed") })
    if ("messageId" in answer) {
      yield* x.checkContext(answer.contextId)
      x.view.apply({ payload: { $case: "message", value: answer } })
      return yield* x.say(x.view.reply)
    }
    yield* x.checkContext(answer.contextId)
    yield* x.say(x.view.task(answer))
    while (!x.view.settled()) {
      yield* Effect.sleep(pollIntervalMs)
      const task: Task = yield* Effect.tryPromise({
        try: (signal) => x.client.getTask({ tenant: "", id: answer.id }, { signal }),
        catch: x.fail("Rpc", "tasks/get failed")
      })
      yield* x.checkContext(task.contextId)
      const before = x.view.statusText
      const t = x.view.task(task)
      if (t !== undefined && t !== before) yield* x.say(t)
    }
  })

/**
 * One run of an A2A child (a start or a continue): the message sent with the saved `contextId`,
 * streamed when the card says the agent streams, else sent and then polled with get-task; the
 * agent's status messages go to the child's transcript, its artifacts become the result. On
 * interruption (stop, timeout) cancel-task is sent (bounded by `cancelGraceMs`), whatever the
 * server does with it. Every fault is a `failed` outcome with a one-line note naming the agent.
 */
export const runA2a = (
  resolved: ResolvedA2aAgent,
  context: Vocabulary.StartContext,
  text: string,
  saved: A2aContinuation | undefined,
  options: RunOptions,
  turn = 0
): Effect.Effect<{ readonly outcome: Vocabulary.ChildOutcome; readonly continuation: A2aContinuation | undefined }> =>
  Effect.gen(function*() {
    const label = `a2a:${resolved.agent.name}`
    const transcript = context.store?.transcript
    const emit = (event: Events.AgentEvent): Effect.Effect<void> =>
      Effect.gen(function*() {
        if (transcript !== undefined && !Events.isEphemeral(event)) {
          yield* transcript.append(event).pipe(Effect.ignore({ log: "Warn", message: `could not record an event of ${context.handle}` }))
        }
        yield* context.onEvent(event)
      })
    const view = new TaskView()
    if (saved !== undefined) view.contextId = saved.contextId
    const startedAt = yield* Clock.currentTimeMillis
    yield* emit({ type: "turn-start", turn, prompt: text })
    yield* emit({ type: "message", message: { role: "user", content: text } })

    const fetchImpl = httpErrorsAsText(boundedFetch(headersOf(resolved.agent, options.environment), 24 * 3600 * 1000, options.fetch))
    const fail = (reason: A2aChildError["reason"], what: string) => (e: unknown) =>
      new A2aChildError({ reason, message: `${label}: ${what}: ${causeOf(e)}` })
    const client = yield* Effect.tryPromise({
      try: () => new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat: { enabled: true } })] }).createFromAgentCard(resolved.card),
      catch: fail("Card", "cannot make a client from its card")
    })
    const said = yield* Ref.make<Array<string>>([])
    const say = (t: string | undefined) =>
      t === undefined || t === "" ? Effect.void : Ref.update(said, (a) => [...a, t]).pipe(Effect.andThen(emit({ type: "message", message: { role: "assistant", content: t } })))
    /** A task of another conversation is a protocol fault, never mixed into this one. */
    const checkContext = (contextId: string) =>
      saved !== undefined && contextId !== "" && contextId !== saved.contextId
        ? Effect.fail(new A2aChildError({ reason: "Protocol", message: `${label}: the agent answered for another context (${contextId}, not ${saved.contextId})` }))
        : Effect.void
    const payloadContext = (ev: StreamResponse): string => ev.payload?.value.contextId ?? ""

    const request: SendMessageRequest = { tenant: "", message: userMessage(text, saved), configuration: undefined, metadata: undefined }
    const services = yield* Effect.context<never>()
    const run = Effect.runPromiseWith(services)
    // The SDK's stream is read in one promise: its signal aborts the request on interruption
    // (an async generator's return() would wait behind the pending read of a silent stream).
    const streamed = Effect.tryPromise({
      try: async (signal) => {
        for await (const ev of client.sendMessageStream(request, { signal })) {
          await run(checkContext(payloadContext(ev)).pipe(Effect.andThen(say(view.apply(ev)))))
        }
      },
      // A fault raised by our own handling (another context) comes back as itself.
      catch: (e) => (e instanceof A2aChildError ? e : fail("Rpc", "its stream failed")(e))
    })
    const polled = pollAnswer({ client, request, view, checkContext, say, fail }, options.pollIntervalMs)
    const cancel = (c: Client) =>
      view.taskId === undefined || view.settled() ? Effect.void : Effect.tryPromise((signal) => c.cancelTask({ tenant: "", id: view.taskId!, metadata: undefined }, { signal })).pipe(
        Effect.timeoutOption(options.cancelGraceMs),
        Effect.ignore
      )

    const finish = (outcome: Vocabulary.ChildOutcome) =>
      Effect.gen(function*() {
        if (outcome.usage.totalTokens > 0) yield* emit({ type: "usage", model: label, usage: outcome.usage })
        yield* emit({
          type: "turn-end",
          turn,
          status: outcome.status,
          result: outcome.output,
          usage: outcome.usage,
          durationMs: (yield* Clock.currentTimeMillis) - startedAt,
          ...(outcome.notes === undefined ? {} : { error: outcome.notes })
        })
        if (transcript !== undefined) yield* transcript.sync.pipe(Effect.ignore)
      })
    const soFar = (status: Vocabulary.ChildOutcome["status"], notes: string | undefined): Effect.Effect<Vocabulary.ChildOutcome> =>
      Effect.map(Ref.get(said), (s) => {
        const usage = view.usage()
        const output = view.result() || s.join("\n")
        const usageNote = usage === undefined ? "the agent reported no usage" : undefined
        const all = [notes, usageNote].filter((n) => n !== undefined).join("; ")
        return { status, output, usage: usage ?? Usage.emptyUsage, ...(all === "" ? {} : { notes: all }) }
      })

    const exit = yield* Effect.exit((resolved.streaming ? streamed : polled).pipe(
      // Stop and timeout: cancel-task (bounded), then the record; the service sets the status.
      Effect.onInterrupt(() => cancel(client).pipe(Effect.andThen(soFar("cancelled", "cancelled")), Effect.flatMap(finish)))
    ))
    let outcome: Vocabulary.ChildOutcome
    if (Exit.isFailure(exit)) {
      const error = Option.getOrUndefined(Cause.findErrorOption(exit.cause))
      yield* cancel(client)
      outcome = yield* soFar("failed", error instanceof A2aChildError ? error.message : `${label}: ${firstLine(Cause.pretty(exit.cause))}`)
    } else {
      const o = view.outcome()
      outcome = yield* soFar(o.status, o.notes === undefined ? undefined : `${label}: ${o.notes}`)
    }
    let continuation: A2aContinuation | undefined
    if (view.contextId !== undefined && view.contextId !== "") {
      continuation = { contextId: view.contextId, ...(view.waiting() && view.taskId !== undefined ? { taskId: view.taskId } : {}) }
      yield* context.saveContinuation(continuation)
    }
    yield* finish(outcome)
    return { outcome, continuation }
  }).pipe(
    // Only the client's own construction can fail here: the run's faults became outcomes above.
    Effect.catch((e) => Effect.succeed({ outcome: { status: "failed", output: "", usage: Usage.emptyUsage, notes: e.message } satisfies Vocabulary.ChildOutcome, continuation: saved }))
  )
