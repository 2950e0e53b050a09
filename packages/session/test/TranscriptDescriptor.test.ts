/**
 * A transcript's kept descriptor around the moments its file changes under it or its budget is
 * full: a restore that replaces the live file, a write that fails after the store closed, a sync
 * in flight under a budget of one. `node:fs` is wrapped so a test can hold an fdatasync in flight
 * (a deterministic interleaving, no sleeps) and watch `closeSync`; with no hook set, every call
 * goes straight to the real function.
 */
import { mkdirSync, mkdtempSync, openSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { gzipSync } from "node:zlib"
import { assert, describe, it } from "@effect/vitest"
import { vi } from "vitest"
import { Effect, Fiber } from "effect"
import { FileSessionStore } from "../src/index.ts"
import { OpenFiles, Samples } from "../src/testing.ts"

const hooks = vi.hoisted(() => ({
  /** When set, each fdatasync is held here until the test calls its callback. */
  held: undefined as undefined | Array<{ readonly fd: number; readonly done: (e: Error | null) => void }>,
  onHeld: undefined as undefined | (() => void),
  /** When set, called after every real closeSync. */
  afterClose: undefined as undefined | ((fd: number) => void)
}))

vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>()
  return {
    ...actual,
    fdatasync: (fd: number, cb: (e: Error | null) => void) => {
      if (hooks.held === undefined) return actual.fdatasync(fd, cb)
      hooks.held.push({ fd, done: (e) => (e === null ? actual.fdatasync(fd, cb) : cb(e)) })
      hooks.onHeld?.()
    },
    closeSync: (fd: number) => {
      actual.closeSync(fd)
      hooks.afterClose?.(fd)
    }
  }
})

/** Resolves when the next fdatasync is held. */
const nextHeld = Effect.callback<void>((resume) => {
  hooks.onHeld = () => {
    hooks.onHeld = undefined
    resume(Effect.void)
  }
})

const event = (message: string) => ({ type: "notice", level: "info", message }) as const

describe("a transcript's descriptor", () => {
  it.effect("restoreChild beside a live transcript: appends after the restore reach the file", () =>
    Effect.gen(function*() {
      const home = mkdtempSync(join(tmpdir(), "dsh-descriptor-"))
      const store = yield* FileSessionStore.make({ home })
      const session = yield* store.create({ ...Samples.sampleSession, id: "s" })
      const child = yield* session.child("c")
      // A crash (or another store) left an archive beside a transcript started afresh.
      const dir = join(home, "sessions", "s")
      mkdirSync(join(dir, "archive"), { recursive: true })
      const old = `${JSON.stringify({ seq: 1, ts: "2026-01-01T00:00:00.000Z", ...event("archived") })}\n`
      writeFileSync(join(dir, "archive", "c.wire.jsonl.gz"), gzipSync(old))
      // This process continues the child: its appender now keeps the live file open.
      yield* child.transcript.append(event("before the restore"))
      assert.isTrue(yield* session.restoreChild("c"))
      yield* child.transcript.append(event("after the restore"))
      yield* child.transcript.sync
      const live = readFileSync(join(dir, "agents", "c", "wire.jsonl"), "utf8")
      assert.include(live, "after the restore", `the event went to a removed inode; open: ${OpenFiles.under(home).join(", ")}`)
    }))

  it.effect("a failed write after the store closed closes its descriptor once (no double close)", () =>
    Effect.gen(function*() {
      const home = mkdtempSync(join(tmpdir(), "dsh-descriptor-"))
      const child = yield* Effect.scoped(Effect.gen(function*() {
        const store = yield* FileSessionStore.make({ home })
        const session = yield* store.create({ ...Samples.sampleSession, id: "s" })
        return yield* session.child("c")
      }))
      // Every write to this transcript fails (ENOSPC).
      symlinkSync("/dev/full", join(home, "sessions", "s", "agents", "c", "wire.jsonl"))
      const victim = join(home, "victim")
      writeFileSync(victim, "")
      let victimFd: number | undefined
      // A thread-pool open (any fs.promises call) landing just after the first close gets the freed number.
      const closes: Array<number> = []
      hooks.afterClose = (fd) => {
        closes.push(fd)
        if (victimFd === undefined) victimFd = openSync(victim, "r")
      }
      const failed = yield* Effect.exit(child.transcript.append(event("lost to ENOSPC")))
      hooks.afterClose = undefined
      assert.strictEqual(failed._tag, "Failure")
      assert.isDefined(victimFd)
      const target = (() => {
        try {
          return readlinkSync(`/proc/self/fd/${victimFd}`)
        } catch {
          return "(closed)"
        }
      })()
      assert.strictEqual(target, victim, "the second close closed the victim's descriptor")
      assert.deepStrictEqual(closes, [victimFd], "the appender closed its descriptor's number twice")
    }))

  it.effect("maxOpenTranscripts: 1 holds while a sync is in flight", () =>
    Effect.gen(function*() {
      const home = mkdtempSync(join(tmpdir(), "dsh-descriptor-"))
      const store = yield* FileSessionStore.make({ home, maxOpenTranscripts: 1 })
      const session = yield* store.create({ ...Samples.sampleSession, id: "s" })
      const a = yield* session.child("a")
      const b = yield* session.child("b")
      yield* a.transcript.append(event("a1"))
      hooks.held = []
      const held = nextHeld
      const syncing = yield* Effect.forkChild(a.transcript.sync)
      yield* held
      yield* b.transcript.append(event("b1"))
      const open = OpenFiles.under(home).length
      for (const h of hooks.held) h.done(null)
      hooks.held = undefined
      yield* Fiber.join(syncing)
      assert.isAtMost(open, 1, "two transcripts open under a budget of one")
    }))
  it.effect("after a failed fsync every later sync of the transcript fails too (a retry could pass with events missing)", () =>
    Effect.gen(function*() {
      const home = mkdtempSync(join(tmpdir(), "dsh-descriptor-"))
      const store = yield* FileSessionStore.make({ home })
      const session = yield* store.create({ ...Samples.sampleSession, id: "s" })
      const child = yield* session.child("c")
      yield* child.transcript.append(event("written, then lost to the disk"))
      hooks.held = []
      const held = nextHeld
      const first = yield* Effect.forkChild(Effect.exit(child.transcript.sync))
      yield* held
      const eio = Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO" })
      for (const h of hooks.held) h.done(eio)
      hooks.held = undefined
      const failed = yield* Fiber.join(first)
      assert.strictEqual(failed._tag, "Failure")
      // The kernel would now report success for a new fdatasync: the store must not.
      yield* child.transcript.append(event("after the failure"))
      const again = yield* Effect.exit(child.transcript.sync)
      assert.strictEqual(again._tag, "Failure")
      assert.include(String(again._tag === "Failure" ? again.cause : ""), "EIO")
    }))
})
