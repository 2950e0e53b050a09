import { spawn } from "node:child_process"
import { existsSync, watch } from "node:fs"
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { gzipSync } from "node:zlib"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { FileSessionStore } from "../src/index.ts"
import { Samples } from "../src/testing.ts"

/**
 * The file store's archive on disk: what a crash between the steps of an archive or a restore
 * leaves, and a real `kill -9` in the middle of compressing a large transcript. Whatever the
 * moment, the transcript reads back whole, and the next archive or restore settles the files.
 */
const tempHome = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(join(tmpdir(), "dsh-archive-"))),
  (home) => Effect.promise(() => rm(home, { recursive: true, force: true }))
)

/** A session with one child whose transcript holds `turns` sample turns; returns its paths. */
const seeded = (turns: number) =>
  Effect.gen(function*() {
    const home = yield* tempHome
    const store = yield* FileSessionStore.make({ home })
    const handle = yield* store.create({ ...Samples.sampleSession, id: "s" })
    const child = yield* handle.child("big-1")
    for (let t = 1; t <= turns; t++) for (const e of Samples.sampleTurnEvents(t)) yield* child.transcript.append(e)
    yield* child.transcript.sync
    const dir = join(home, "sessions", "s")
    return { home, handle, child, live: join(dir, "agents", "big-1", "wire.jsonl"), archive: join(dir, "archive", "big-1.wire.jsonl.gz"), archiveDir: join(dir, "archive") }
  })

const text = (path: string) => Effect.promise(() => readFile(path, "utf8"))
const reopen = (home: string) => FileSessionStore.make({ home }).pipe(Effect.flatMap((s) => s.open("s")))

describe("FileSessionStore archive on disk", () => {
  it.effect("lays the archive out as archive/<child>.wire.jsonl.gz, a gzip of the transcript, and removes the live file", () =>
    Effect.gen(function*() {
      const { handle, live, archive } = yield* seeded(5)
      const original = yield* text(live)
      yield* handle.archiveChild("big-1")
      assert.isFalse(existsSync(live), "the live transcript is gone")
      const { gunzipSync } = yield* Effect.promise(() => import("node:zlib"))
      assert.strictEqual(gunzipSync(yield* Effect.promise(() => readFile(archive))).toString("utf8"), original, "the archive is the transcript, gzipped")
    }))

  it.effect("a crash after the archive was renamed but before the transcript was removed: the live file wins, nothing doubles", () =>
    Effect.gen(function*() {
      const { home, live, archive, archiveDir } = yield* seeded(3)
      const original = yield* text(live)
      yield* Effect.promise(() => mkdir(archiveDir, { recursive: true }))
      yield* Effect.promise(() => writeFile(archive, gzipSync(original)))
      const handle = yield* reopen(home)
      const child = yield* handle.child("big-1")
      assert.strictEqual((yield* child.transcript.read).records.length, 18, "read sees the live transcript once")
      yield* handle.archiveChild("big-1")
      assert.strictEqual((yield* child.transcript.read).records.length, 18, "archived again: nothing doubled")
      yield* handle.restoreChild("big-1")
      assert.strictEqual(yield* text(live), original, "restored: the transcript, once")
    }))

  it.effect("a crash after a restore wrote the transcript back but before the archive was removed: the live file wins", () =>
    Effect.gen(function*() {
      const { home, live, archive, archiveDir } = yield* seeded(2)
      const original = yield* text(live)
      yield* Effect.promise(() => mkdir(archiveDir, { recursive: true }))
      yield* Effect.promise(() => writeFile(archive, gzipSync(original)))
      // …and the continued child had appended meanwhile.
      const handle = yield* reopen(home)
      const child = yield* handle.child("big-1")
      yield* child.transcript.append({ type: "notice", level: "info", message: "after the restore" })
      yield* child.transcript.sync
      assert.deepStrictEqual((yield* child.transcript.read).records.map((r) => r.seq), Array.from({ length: 13 }, (_, i) => i + 1))
      yield* handle.archiveChild("big-1")
      assert.deepStrictEqual((yield* (yield* (yield* reopen(home)).child("big-1")).transcript.read).records.map((r) => r.seq), Array.from({ length: 13 }, (_, i) => i + 1), "archived: each record once")
    }))

  it.effect("a transcript started afresh beside an archive keeps both: the archive's records first", () =>
    Effect.gen(function*() {
      const { home, live, archive, archiveDir } = yield* seeded(1)
      const original = yield* text(live)
      yield* Effect.promise(() => mkdir(archiveDir, { recursive: true }))
      yield* Effect.promise(() => writeFile(archive, gzipSync(original)))
      const fresh = `${JSON.stringify({ seq: 7, ts: "2026-11-30T00:00:00.000Z", type: "notice", level: "info", message: "fresh" })}\n`
      yield* Effect.promise(() => writeFile(live, fresh))
      const handle = yield* reopen(home)
      assert.isTrue(yield* handle.restoreChild("big-1"))
      assert.strictEqual(yield* text(live), original + fresh, "nothing is dropped: the archive's content, then the live file's")
    }))

  it.effect("temp files of an interrupted archive are not archives, and the next archive removes them", () =>
    Effect.gen(function*() {
      const { handle, archiveDir } = yield* seeded(2)
      yield* Effect.promise(() => mkdir(archiveDir, { recursive: true }))
      yield* Effect.promise(() => writeFile(join(archiveDir, ".big-1.wire.jsonl.gz.999.dead.tmp"), "half"))
      assert.deepStrictEqual(yield* handle.archivedChildren, [])
      yield* handle.archiveChild("big-1")
      assert.deepStrictEqual(yield* Effect.promise(() => readdir(archiveDir)), ["big-1.wire.jsonl.gz"])
    }))

  it.live("kill -9 in the middle of archiving a large transcript loses nothing", () =>
    Effect.gen(function*() {
      // ~6 MB: long enough to be caught while the compressed temp file is being written.
      const { home, live, archiveDir } = yield* seeded(6000)
      const records = (yield* text(live)).split("\n").length - 1
      yield* Effect.promise(() => mkdir(archiveDir, { recursive: true }))
      const killedMidway = yield* Effect.promise(() =>
        new Promise<boolean>((resolve, reject) => {
          const child = spawn(process.execPath, ["--conditions=@dsh/source", join(import.meta.dirname, "fixtures", "archive-child.ts"), home, "s", "big-1"], { stdio: ["ignore", "pipe", "inherit"] })
          let sawTemp = false
          // The archive's temp file appearing is the moment to kill it.
          const watcher = watch(archiveDir, (_event, name) => {
            if (!sawTemp && typeof name === "string" && name.endsWith(".tmp")) {
              sawTemp = true
              child.kill("SIGKILL")
            }
          })
          child.on("error", reject)
          child.on("exit", (_code, signal) => {
            watcher.close()
            resolve(signal === "SIGKILL")
          })
        })
      )
      assert.isTrue(killedMidway, "the archiving process was killed while writing the archive")
      const handle = yield* reopen(home)
      const child = yield* handle.child("big-1")
      assert.strictEqual((yield* child.transcript.read).records.length, records, "after the crash: every record, from wherever it is")
      yield* handle.archiveChild("big-1")
      assert.isFalse(existsSync(live))
      assert.deepStrictEqual(yield* Effect.promise(() => readdir(archiveDir)), ["big-1.wire.jsonl.gz"], "archived again: the leftover temp file is gone")
      assert.strictEqual((yield* child.transcript.read).records.length, records, "and every record reads back from the archive")
    }), 60_000)
})
