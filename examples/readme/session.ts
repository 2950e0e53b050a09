import { FileSessionStore, SessionStore } from "@dsh/session"
import { Effect } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const write = Effect.gen(function*() {
  const store = yield* SessionStore.SessionStore
  const session = yield* store.create({ agent: "coder", cwd: process.cwd(), model: "scripted" })

  // A turn: events are buffered in memory; text-delta is live-only and never written.
  yield* session.transcript.append({ type: "turn-start", turn: 1, prompt: "hello" })
  yield* session.transcript.append({ type: "text-delta", text: "Hi" })
  yield* session.transcript.append({ type: "message", message: { role: "assistant", content: "Hi!" } })
  yield* session.transcript.sync // turn boundary: one write + fdatasync

  // The state: read-modify-write, serialized; the change is appended to state.changes.jsonl.
  yield* session.updateState((state) => ({ ...state, status: "completed" }))
  // A value from the state it writes (a number handed out), right even when updates race.
  const tickets = (state: SessionStore.SessionState) => (typeof state.tickets === "number" ? state.tickets : 0)
  const ticket = yield* SessionStore.modifyState(session, (state) => [tickets(state) + 1, { ...state, tickets: tickets(state) + 1 }] as const)
  console.log(`ticket ${ticket}`) // ticket 1

  // A child's own directory: agents/explore-1/{wire.jsonl,meta.json}.
  const child = yield* session.child("explore-1")
  yield* child.writeMeta({ agent: "explore", provider: "spawn" })
  return session.id
})

// Another process (here: another store over the same directory) sees what was synced.
const read = (id: string) => Effect.gen(function*() {
  const session = yield* (yield* SessionStore.SessionStore).open(id)
  const { records } = yield* session.transcript.read
  console.log(records.map((r) => `${r.seq} ${r.type}`).join(", ")) // 1 turn-start, 2 message
  console.log((yield* session.readState).status, (yield* session.children).join(", ")) // completed explore-1
})

const home = mkdtempSync(join(tmpdir(), "dsh-home-")) // sessions live in <home>/sessions/<id>/
const id = await Effect.runPromise(write.pipe(Effect.provide(FileSessionStore.layer({ home }))))
await Effect.runPromise(read(id).pipe(Effect.provide(FileSessionStore.layer({ home }))))
