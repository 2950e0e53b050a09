/**
 * A session on disk in five steps. Run from the repository root:
 *   node --conditions=@dsh/source packages/session/examples/quickstart.ts
 */
import { mkdtemp } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { FileSessionStore, SessionStore } from "@dsh/session"
import { Effect } from "effect"

const program = Effect.gen(function*() {
  const store = yield* SessionStore
  const session = yield* store.create({ agent: "coder", cwd: process.cwd(), model: "scripted" })

  // A turn: events are buffered in memory; text-delta is live-only and never written.
  yield* session.transcript.append({ type: "turn-start", turn: 1, prompt: "hello" })
  yield* session.transcript.append({ type: "text-delta", text: "Hi" })
  yield* session.transcript.append({ type: "message", message: { role: "assistant", content: "Hi!" } })
  yield* session.transcript.sync // turn boundary: one write + fdatasync

  // state.json: read-modify-write, serialized and atomically replaced.
  yield* session.updateState((state) => ({ ...state, status: "completed" }))

  // A child's own directory: agents/explore-1/{wire.jsonl,meta.json}.
  const child = yield* session.child("explore-1")
  yield* child.writeMeta({ agent: "explore", provider: "spawn" })

  const { records } = yield* session.transcript.read
  console.log(session.location)
  console.log(records.map((r) => `${r.seq} ${r.type}`).join("\n"))
  console.log((yield* store.list).map((s) => `${s.id} ${s.status}`).join("\n"))
})

const home = await mkdtemp(join(tmpdir(), "dsh-home-"))
await Effect.runPromise(program.pipe(Effect.provide(FileSessionStore.layer({ home }))))
