import { SessionStore } from "@dsh/session"
import { PgSessionStore } from "@dsh/session-pg"
import { Context, Deferred, Effect, Fiber, Layer, Stream } from "effect"

// Where the sessions live, e.g. postgres://dsh:secret@db.internal:5432/dsh (here from DSH_STORE).
const url = process.env.DSH_STORE ?? "postgres://postgres@localhost:5432/postgres"

const program = Effect.scoped(Effect.gen(function*() {
  // Two processes sharing one database: here two stores, each with its own connections.
  // Each runs the migrations on start (the second finds nothing to do).
  const runner = Context.get(yield* Layer.build(PgSessionStore.layer({ url })), SessionStore.SessionStore)
  const reader = Context.get(yield* Layer.build(PgSessionStore.layer({ url })), SessionStore.SessionStore)

  // The runner creates a session and takes its lease: one process runs a session at a time.
  const session = yield* runner.create({ agent: "coder", cwd: "/work", model: "scripted" })
  yield* session.acquire
  // Written through: each append is committed, for every process to see, as it happens.
  yield* session.transcript.append({ type: "turn-start", turn: 1, prompt: "hello" })
  yield* session.transcript.append({ type: "message", message: { role: "assistant", content: "Hi!" } })

  const seen = yield* reader.open(session.id)
  const { records } = yield* seen.transcript.read
  console.log(`reader sees: ${records.map((r) => `${r.seq} ${r.type}`).join(", ")}`) // reader sees: 1 turn-start, 2 message
  const refused = yield* Effect.flip(Effect.scoped(seen.acquire))
  console.log(`reader may not run it: ${refused.reason}`) // reader may not run it: Owned

  // A request from the other process reaches the runner pushed (LISTEN/NOTIFY), not polled.
  const listening = yield* Deferred.make<void>()
  const heard = yield* session.watchState.pipe(
    Stream.tap(() => Deferred.succeed(listening, undefined)),
    Stream.filter((s: SessionStore.SessionState) => s["request"] !== undefined),
    Stream.runHead,
    Effect.forkChild
  )
  yield* Deferred.await(listening)
  yield* seen.updateState((s) => ({ ...s, request: "stop" })) // one transaction: no lost update
  const request = yield* Fiber.join(heard)
  console.log(`runner heard: ${request._tag === "Some" ? String(request.value["request"]) : "nothing"}`) // runner heard: stop

  yield* session.transcript.sync // turn boundary: durable
  yield* session.updateState((s) => ({ ...s, status: "completed" }))
  console.log(`sessions: ${(yield* reader.list).map((s) => s.status).join(", ")}`) // sessions: completed
}))

await Effect.runPromise(program)
