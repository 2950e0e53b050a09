import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect } from "effect"
import { spawnSync } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { FileSessionStore } from "../src/index.ts"
import { OpenFiles, Samples } from "../src/testing.ts"

describe("FileSessionStore's open transcripts", () => {
  it.effect("keeps at most maxOpenTranscripts open, and every event of every child reaches its file", () =>
    Effect.gen(function*() {
      const home = mkdtempSync(join(tmpdir(), "dsh-descriptors-"))
      const store = yield* FileSessionStore.make({ home, maxOpenTranscripts: 4 })
      const session = yield* store.create({ ...Samples.sampleSession, id: "s" })
      const children = yield* Effect.forEach(Array.from({ length: 12 }, (_, i) => `c-${i}`), (name) => session.child(name))
      const events = Samples.sampleTurnEvents(1)
      for (const event of events) {
        yield* Effect.forEach(children, (child) => child.transcript.append(event), { discard: true })
        assert.isAtMost(OpenFiles.under(home).length, 4)
      }
      yield* Effect.forEach(children, (child) => child.transcript.sync, { concurrency: "unbounded", discard: true })
      for (const child of children) {
        const { records } = yield* child.transcript.read
        assert.deepStrictEqual(records.map((r) => [r.seq, r.type]), events.map((e, i) => [i + 1, e.type]))
      }
      assert.isAtMost(OpenFiles.under(home).length, 4)
    }))

  it.effect("refuses a budget that is not a whole number of at least 1, naming it", () =>
    Effect.gen(function*() {
      const home = mkdtempSync(join(tmpdir(), "dsh-descriptors-"))
      for (const bad of [0, -3, 2.5, Number.NaN]) {
        const exit = yield* Effect.exit(Effect.scoped(FileSessionStore.make({ home, maxOpenTranscripts: bad })))
        assert.isTrue(exit._tag === "Failure" && String(Cause.squash(exit.cause)).includes(`maxOpenTranscripts must be a whole number of at least 1, not ${bad}`))
      }
    }))

  it("loses nothing when a session has more children than the process may open files", () => {
    const home = mkdtempSync(join(tmpdir(), "dsh-descriptors-"))
    const script = join(import.meta.dirname, "fixtures", "many-children.ts")
    // 300 transcripts written at once, under a limit of 96 open files for the whole process.
    const run = spawnSync("/bin/sh", ["-c", "ulimit -n 96 && exec \"$@\"", "sh", process.execPath, "--conditions=@dsh/source", script, home, "300"], { encoding: "utf8", timeout: 60_000 })
    assert.strictEqual(run.status, 0, run.stderr)
    assert.strictEqual(run.stdout.trim(), "300")
  }, 60_000)
})
