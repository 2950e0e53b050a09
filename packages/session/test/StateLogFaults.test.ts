/**
 * The state change log where a fold meets a failure or another process: a fold whose removal of
 * the log fails (as a crash right after its new state.json would leave it), a reader that another
 * process's fold overtakes between reading the log and reading state.json, an append that fails
 * part-way. `node:fs` is wrapped so a test can fail one call or run a step of "another process"
 * at an exact point; with no hook set, every call goes straight to the real function.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { vi } from "vitest"
import { Effect } from "effect"
import { FileSessionStore, type SessionStore } from "../src/index.ts"
import { Samples } from "../src/conformance.ts"

const hooks = vi.hoisted(() => ({
  /** Called instead of unlinkSync when set. */
  unlink: undefined as undefined | ((path: string) => void),
  /** Called before readFileSync when set. */
  beforeRead: undefined as undefined | ((path: string) => void),
  /** Called instead of writeSync when set (with the real one). */
  write: undefined as undefined | ((real: (fd: number, buffer: Buffer, offset: number) => number, fd: number, buffer: Buffer, offset: number) => number)
}))

vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>()
  return {
    ...actual,
    unlinkSync: (path: string) => (hooks.unlink === undefined ? actual.unlinkSync(path) : hooks.unlink(path)),
    readFileSync: ((path: string, ...rest: Array<unknown>) => {
      hooks.beforeRead?.(String(path))
      return (actual.readFileSync as (...a: Array<unknown>) => unknown)(path, ...rest)
    }) as typeof actual.readFileSync,
    writeSync: ((fd: number, buffer: Buffer, offset: number, ...rest: Array<unknown>) =>
      hooks.write === undefined || !Buffer.isBuffer(buffer)
        ? (actual.writeSync as (...a: Array<unknown>) => number)(fd, buffer, offset, ...rest)
        : hooks.write((f, b, o) => actual.writeSync(f, b, o), fd, buffer, offset)) as typeof actual.writeSync
  }
})

const tempHome = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "dsh-statelog-faults-"))),
  (home) => Effect.sync(() => rmSync(home, { recursive: true, force: true }))
)

const LOG = "state.changes.jsonl"

/** A run under way: its status and one child recorded running, both in the log. */
const running = (s: SessionStore.SessionState): SessionStore.SessionState => ({ ...s, status: "running", subagents: { a: { status: "running" } } })
/** The update that ends it: status, child and result at once (it folds the log). */
const settled = (s: SessionStore.SessionState): SessionStore.SessionState => ({ ...s, status: "completed", subagents: { a: { status: "completed" } }, result: "done" })

const shape = (s: SessionStore.SessionState) => ({ status: s.status, a: (s.subagents as Record<string, { status: string }>)["a"]?.status, result: s["result"] })

describe("FileSessionStore state change log, at a fold's edges", () => {
  it.effect("an update that folds, whose removal of the log fails (or a crash comes first), reads back as the state it wrote", () =>
    Effect.gen(function*() {
      const home = yield* tempHome
      const session = yield* (yield* FileSessionStore.make({ home })).create({ ...Samples.sampleSession, id: "cut" })
      yield* session.updateState(running)
      yield* session.updateState((s) => ({ ...s, note: "a line in the log" }))
      hooks.unlink = (path) => {
        if (path.endsWith(LOG)) throw Object.assign(new Error(`EIO: i/o error, unlink '${path}'`), { code: "EIO" })
        unlinkSync(path)
      }
      const failed = yield* Effect.flip(session.updateState(settled)).pipe(Effect.ensuring(Effect.sync(() => (hooks.unlink = undefined))))
      assert.strictEqual(failed.reason, "Io")
      assert.isTrue(existsSync(join(home, "sessions", "cut", LOG)), "the log is still there, as a crash would leave it")
      // A process that starts afterwards: the log replayed over the new state.json must not undo it.
      const reread = yield* (yield* (yield* FileSessionStore.make({ home })).open("cut")).readState
      assert.deepStrictEqual(shape(reread), { status: "completed", a: "completed", result: "done" })
    }))

  it.effect("a reader overtaken by another process's fold between reading the log and reading state.json reads the folded state", () =>
    Effect.gen(function*() {
      const home = yield* tempHome
      const dir = join(home, "sessions", "overtaken")
      const session = yield* (yield* FileSessionStore.make({ home })).create({ ...Samples.sampleSession, id: "overtaken" })
      yield* session.updateState(running)
      // The files before the fold, and what the fold leaves: put back, the fold is replayed for the reader.
      const before = mkdtempSync(join(tmpdir(), "dsh-statelog-before-"))
      cpSync(dir, before, { recursive: true })
      yield* session.updateState(settled)
      const folded = readFileSync(join(dir, "state.json"), "utf8")
      rmSync(dir, { recursive: true, force: true })
      cpSync(before, dir, { recursive: true })
      rmSync(before, { recursive: true, force: true })
      assert.isTrue(existsSync(join(dir, LOG)))
      // The other process's fold lands as the reader, having read the log, goes to read state.json.
      let folds = 0
      hooks.beforeRead = (path) => {
        if (folds > 0 || !path.endsWith(join("overtaken", "state.json"))) return
        folds++
        writeFileSync(join(dir, ".state.json.other"), folded)
        renameSync(join(dir, ".state.json.other"), join(dir, "state.json"))
        unlinkSync(join(dir, LOG))
      }
      const read = yield* (yield* FileSessionStore.make({ home })).list.pipe(Effect.ensuring(Effect.sync(() => (hooks.beforeRead = undefined))))
      assert.strictEqual(folds, 1, "the fold came in between")
      assert.deepStrictEqual(shape(read.find((s) => s.id === "overtaken")!), { status: "completed", a: "completed", result: "done" })
    }))

  it.effect("an append that fails part-way leaves none of its change: the next update does not bring it back", () =>
    Effect.gen(function*() {
      const home = yield* tempHome
      const session = yield* (yield* FileSessionStore.make({ home })).create({ ...Samples.sampleSession, id: "withdrawn" })
      yield* session.updateState(running)
      // The disk fills after all but the last byte (the newline) of the next line.
      hooks.write = (real, fd, buffer, offset) => {
        if (buffer.subarray(offset).toString().includes("withdrawn")) {
          real(fd, buffer.subarray(0, buffer.length - 1), offset)
          throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" })
        }
        return real(fd, buffer, offset)
      }
      const failed = yield* Effect.flip(session.updateState((s) => ({ ...s, secret: "withdrawn" }))).pipe(Effect.ensuring(Effect.sync(() => (hooks.write = undefined))))
      assert.strictEqual(failed.reason, "Io")
      yield* session.updateState((s) => ({ ...s, note: "later" }))
      const reread = yield* (yield* (yield* FileSessionStore.make({ home })).open("withdrawn")).readState
      assert.strictEqual(reread["note"], "later")
      assert.isUndefined(reread["secret"], "the failed change stays failed")
    }))
})
