import { spawn } from "node:child_process"
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { hostname, tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { FileSessionStore } from "../src/index.ts"
import { Samples } from "../src/conformance.ts"
import { processStartTime, release, tryAcquire } from "../src/internal/lease.ts"

// The lease's takeover rules now that a lock is created in place (O_EXCL, then written) rather
// than linked from a temp file: an empty lock is "being written" while young, stale once old.

const tempDir = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(join(tmpdir(), "dsh-lease-"))),
  (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
)

/** Sets a file's modification time `ms` into the past. */
const age = (path: string, ms: number) => {
  const then = new Date(Date.now() - ms)
  utimesSync(path, then, then)
}

/** A live process of ours to name as another owner; killed when the scope closes. */
const otherProcess = Effect.acquireRelease(
  Effect.sync(() => spawn("sleep", ["60"], { stdio: "ignore" })),
  (child) => Effect.sync(() => child.kill("SIGKILL"))
)

describe("lease: a lock created in place", () => {
  it.live("leaves no file but the lock while held, and none once released", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const lock = join(dir, "owner.lock")
      const outcome = tryAcquire(lock, new Date())
      assert.strictEqual(outcome._tag, "Acquired")
      assert.deepStrictEqual(readdirSync(dir), ["owner.lock"])
      if (outcome._tag !== "Acquired") return
      assert.strictEqual((JSON.parse(readFileSync(lock, "utf8")) as { token: string }).token, outcome.owner.token)
      release(lock, outcome.held)
      assert.deepStrictEqual(readdirSync(dir), [])
    }))

  it.live("a release leaves alone the lock a taker put in its place, even with the same content", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const lock = join(dir, "owner.lock")
      const outcome = tryAcquire(lock, new Date())
      if (outcome._tag !== "Acquired") return assert.fail(`not acquired: ${outcome._tag}`)
      // A taker judged this process dead: it removed the lock and wrote its own (here, byte for byte the same).
      const content = readFileSync(lock, "utf8")
      rmSync(lock)
      writeFileSync(lock, content)
      release(lock, outcome.held)
      assert.strictEqual(readFileSync(lock, "utf8"), content, "the taker's lock is still there")
      // Its own lock, its mode changed meanwhile (`chmod -R go-rwx` of the home), released: gone.
      rmSync(lock)
      const again = tryAcquire(lock, new Date())
      if (again._tag !== "Acquired") return assert.fail(`not acquired: ${again._tag}`)
      chmodSync(lock, 0o400)
      release(lock, again.held)
      assert.deepStrictEqual(readdirSync(dir), [])
    }))

  it.live("an empty young lock is being written: contended, not taken over, and left in place", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const lock = join(dir, "owner.lock")
      writeFileSync(lock, "")
      assert.strictEqual(tryAcquire(lock, new Date())._tag, "Contended")
      assert.strictEqual(readFileSync(lock, "utf8"), "", "the writer's file is untouched")
      assert.deepStrictEqual(readdirSync(dir), ["owner.lock"], "no takeover guard left behind")
    }))

  it.live("an empty lock older than the write window is stale: taken over", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const lock = join(dir, "owner.lock")
      writeFileSync(lock, "")
      age(lock, 5_000)
      const outcome = tryAcquire(lock, new Date())
      assert.strictEqual(outcome._tag, "Acquired")
      if (outcome._tag === "Acquired") assert.strictEqual((JSON.parse(readFileSync(lock, "utf8")) as { token: string }).token, outcome.owner.token)
      assert.deepStrictEqual(readdirSync(dir), ["owner.lock"])
    }))

  it.live("a lock of any age that names a live process is that process's", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const lock = join(dir, "owner.lock")
      const child = yield* otherProcess
      const pid = child.pid!
      writeFileSync(lock, JSON.stringify({ pid, startTime: processStartTime(pid), host: hostname(), acquiredAt: "", token: "theirs" }))
      age(lock, 60_000)
      const outcome = tryAcquire(lock, new Date())
      assert.strictEqual(outcome._tag, "Owned")
      if (outcome._tag === "Owned") assert.strictEqual(outcome.owner.pid, pid)
    }))
})

describe("lease: the session's owner.lock through the store", () => {
  it.live("an acquire that finds the lock being written waits for it, and is refused once it names a live owner", () =>
    Effect.gen(function*() {
      const home = yield* tempDir
      const store = yield* FileSessionStore.make({ home })
      const handle = yield* store.create({ ...Samples.sampleSession, id: "young" })
      const lock = join(home, "sessions", "young", "owner.lock")
      writeFileSync(lock, "")
      const waiting = yield* Effect.forkChild(Effect.flip(Effect.scoped(handle.acquire)))
      // Still waiting after a few of its retries: the young lock was not taken over.
      yield* Effect.sleep("200 millis")
      assert.strictEqual(readFileSync(lock, "utf8"), "")
      const child = yield* otherProcess
      const pid = child.pid!
      writeFileSync(lock, JSON.stringify({ pid, startTime: processStartTime(pid), host: hostname(), acquiredAt: "2026-12-02T00:00:00.000Z", token: "theirs" }))
      const refused = yield* Fiber.join(waiting)
      assert.strictEqual(refused.reason, "Owned")
      assert.include(refused.detail, `pid ${pid}`)
    }))

  it.live("a lock its writer died writing (empty and old) does not keep the session from being run", () =>
    Effect.gen(function*() {
      const home = yield* tempDir
      const store = yield* FileSessionStore.make({ home })
      const handle = yield* store.create({ ...Samples.sampleSession, id: "died" })
      const lock = join(home, "sessions", "died", "owner.lock")
      writeFileSync(lock, "")
      age(lock, 5_000)
      assert.isUndefined(yield* handle.owner)
      const mine = yield* Effect.scoped(Effect.gen(function*() {
        const owner = yield* handle.acquire
        assert.strictEqual((JSON.parse(readFileSync(lock, "utf8")) as { pid: number }).pid, process.pid)
        return owner
      }))
      assert.strictEqual(mine.pid, process.pid)
      assert.isFalse(existsSync(lock), "released when the scope closed")
    }))
})
