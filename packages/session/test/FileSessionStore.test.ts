import { appendFile, mkdir, mkdtemp, readdir, readFile, readlink, rm, stat, writeFile } from "node:fs/promises"
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { hostname, tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { FileSessionStore } from "../src/index.ts"
import { processStartTime } from "../src/internal/lease.ts"
import { Samples, SessionStoreSuite } from "../src/conformance.ts"

/** A fresh `$DSH_HOME` in the OS temp dir, removed when the test's scope closes. */
const tempHome = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(join(tmpdir(), "dsh-session-"))),
  (home) => Effect.promise(() => rm(home, { recursive: true, force: true }))
)

const fixture = Effect.map(tempHome, (home) => ({ home, start: FileSessionStore.make({ home }) }))

const readText = (path: string) => Effect.promise(() => readFile(path, "utf8").catch(() => ""))

/** Every file name under `dir`, recursively. */
const walk = (dir: string) =>
  Effect.promise(() => readdir(dir, { recursive: true, withFileTypes: true }))
    .pipe(Effect.map((entries) => entries.filter((e) => e.isFile()).map((e) => e.name)))

SessionStoreSuite.sessionStoreSuite("FileSessionStore", fixture)
// The strict sync policy (every metadata write fsynced on its own) behaves the same.
SessionStoreSuite.sessionStoreSuite("FileSessionStore (sync: strict)", Effect.map(tempHome, (home) => ({ home, start: FileSessionStore.make({ home, sync: "strict" }) })))

describe("FileSessionStore on disk", () => {
  it.effect("lays a session out as documented, one LF-terminated record per line", () =>
    Effect.gen(function*() {
      const { home, start } = yield* fixture
      const handle = yield* (yield* start).create({ ...Samples.sampleSession, id: "s1" })
      yield* Effect.forEach(Samples.sampleTurnEvents(1), (e) => handle.transcript.append(e), { discard: true })
      yield* handle.transcript.sync
      const child = yield* handle.child("explore-1")
      yield* child.transcript.append({ type: "notice", level: "info", message: "child" })
      yield* child.transcript.sync
      yield* child.writeMeta({ agent: "explore" })
      yield* handle.writeTask("run-1", { status: "running" })
      const dir = join(home, "sessions", "s1")
      assert.strictEqual(handle.location, dir)
      assert.strictEqual(handle.transcript.location, join(dir, "wire.jsonl"))
      assert.strictEqual(child.location, join(dir, "agents", "explore-1"))
      for (const file of ["state.json", "wire.jsonl", "agents/explore-1/wire.jsonl", "agents/explore-1/meta.json", "tasks/run-1.json"]) {
        assert.isTrue((yield* Effect.promise(() => stat(join(dir, file)))).isFile(), file)
      }
      const wire = yield* readText(join(dir, "wire.jsonl"))
      assert.isTrue(wire.endsWith("\n"))
      const lines = wire.slice(0, -1).split("\n")
      assert.strictEqual(lines.length, 6)
      assert.deepStrictEqual(lines.map((l) => JSON.parse(l).seq), [1, 2, 3, 4, 5, 6])
      assert.strictEqual(JSON.parse(yield* readText(join(dir, "state.json"))).id, "s1")
    }))

  it.effect("each append is a whole line in wire.jsonl at once; sync adds nothing but durability", () =>
    Effect.gen(function*() {
      const { home, start } = yield* fixture
      const handle = yield* (yield* start).create({ ...Samples.sampleSession, id: "wt" })
      const wirePath = join(home, "sessions", "wt", "wire.jsonl")
      for (const [i, event] of Samples.sampleTurnEvents(1).entries()) {
        yield* handle.transcript.append(event)
        const text = yield* readText(wirePath)
        assert.isTrue(text.endsWith("\n"), "every append ends a line")
        assert.strictEqual(text.split("\n").length - 1, i + 1)
      }
      const before = yield* readText(wirePath)
      yield* handle.transcript.sync
      assert.strictEqual(yield* readText(wirePath), before)
    }))

  it.effect("a torn last line is skipped with a warning, and the next append starts a fresh line", () =>
    Effect.gen(function*() {
      const { home, start } = yield* fixture
      const handle = yield* (yield* start).create({ ...Samples.sampleSession, id: "torn" })
      yield* Effect.forEach(Samples.sampleTurnEvents(1).slice(0, 2), (e) => handle.transcript.append(e), { discard: true })
      yield* handle.transcript.sync
      const wirePath = join(home, "sessions", "torn", "wire.jsonl")
      yield* Effect.promise(() => appendFile(wirePath, "{\"seq\":3,\"ts\":\"2026-11-29T00:00:00.000Z\",\"type\":\"mess"))

      const reopened = yield* (yield* start).open("torn")
      const read = yield* reopened.transcript.read
      assert.deepStrictEqual(read.records.map((r) => r.seq), [1, 2])
      assert.strictEqual(read.warnings.length, 1)
      assert.include(read.warnings[0], "torn last line")

      yield* reopened.transcript.append({ type: "notice", level: "info", message: "after the crash" })
      yield* reopened.transcript.sync
      const after = yield* (yield* (yield* start).open("torn")).transcript.read
      assert.deepStrictEqual(after.records.map((r) => [r.seq, r.type]), [[1, "turn-start"], [2, "step-start"], [3, "notice"]])
      assert.strictEqual(after.warnings.length, 1)
      assert.include(after.warnings[0], "wire.jsonl:3: skipped a malformed line")
      const lines = (yield* readText(wirePath)).split("\n")
      assert.isTrue(lines[3]?.startsWith("{\"seq\":3,"))
    }))

  it.effect("a complete last record that lost only its LF is kept, and seq continues after it", () =>
    Effect.gen(function*() {
      const { home, start } = yield* fixture
      yield* (yield* start).create({ ...Samples.sampleSession, id: "nolf" })
      const wirePath = join(home, "sessions", "nolf", "wire.jsonl")
      yield* Effect.promise(() => writeFile(wirePath, "{\"seq\":1,\"ts\":\"2026-11-29T00:00:00.000Z\",\"type\":\"step-start\",\"turn\":1,\"step\":1}"))
      const reopened = yield* (yield* start).open("nolf")
      yield* reopened.transcript.append({ type: "notice", level: "info", message: "next" })
      yield* reopened.transcript.sync
      const read = yield* reopened.transcript.read
      assert.deepStrictEqual(read.warnings, [])
      assert.deepStrictEqual(read.records.map((r) => [r.seq, r.type]), [[1, "step-start"], [2, "notice"]])
    }))

  it.effect("a malformed line in the middle is skipped with a warning", () =>
    Effect.gen(function*() {
      const { home, start } = yield* fixture
      yield* (yield* start).create({ ...Samples.sampleSession, id: "mid" })
      const good = (seq: number) => JSON.stringify({ seq, ts: "2026-11-29T00:00:00.000Z", type: "notice", level: "info", message: "m" })
      const wirePath = join(home, "sessions", "mid", "wire.jsonl")
      yield* Effect.promise(() => writeFile(wirePath, [good(1), "not json {", "{\"no\":\"seq\"}", "", good(2), ""].join("\n")))
      const reopened = yield* (yield* start).open("mid")
      const read = yield* reopened.transcript.read
      assert.deepStrictEqual(read.records.map((r) => r.seq), [1, 2])
      assert.deepStrictEqual(read.warnings, [`${wirePath}:2: skipped a malformed line`, `${wirePath}:3: skipped a malformed line`])
      yield* reopened.transcript.append({ type: "notice", level: "info", message: "next" })
      yield* reopened.transcript.sync
      assert.deepStrictEqual((yield* reopened.transcript.read).records.map((r) => r.seq), [1, 2, 3])
    }))

  it.effect("atomic writes leave no temp files behind, and a crashed one leaves the old state", () =>
    Effect.gen(function*() {
      const { home, start } = yield* fixture
      const handle = yield* (yield* start).create({ ...Samples.sampleSession, id: "atomic" })
      yield* Effect.forEach(
        Array.from({ length: 50 }, (_, i) => i),
        (i) => handle.updateState((s) => ({ ...s, n: i })),
        { concurrency: "unbounded", discard: true }
      )
      yield* Effect.forEach(["run-1", "run-2"], (id) => handle.writeTask(id, { id }), { concurrency: 2, discard: true })
      yield* (yield* handle.child("c-1")).writeMeta({ a: 1 })
      const dir = join(home, "sessions", "atomic")
      assert.deepStrictEqual((yield* walk(dir)).filter((name) => name.endsWith(".tmp")), [])

      // A process killed between writing the temp file and renaming it leaves both behind.
      const before = yield* handle.readState
      yield* Effect.promise(() => writeFile(join(dir, ".state.json.999.dead.tmp"), "{\"version\":1,\"id\":\"atom"))
      yield* Effect.promise(() => writeFile(join(dir, "tasks", ".run-3.json.999.dead.tmp"), "{"))
      const reopened = yield* (yield* start).open("atomic")
      assert.deepStrictEqual(yield* reopened.readState, before)
      assert.deepStrictEqual(yield* reopened.readTasks, [{ id: "run-1" }, { id: "run-2" }])
    }))

  it.effect("a corrupt state.json is Corrupt on open and skipped by list, like a directory without one", () =>
    Effect.gen(function*() {
      const { home, start } = yield* fixture
      const store = yield* start
      yield* store.create({ ...Samples.sampleSession, id: "good" })
      yield* Effect.promise(() => mkdir(join(home, "sessions", "empty-dir"), { recursive: true }))
      yield* Effect.promise(() => mkdir(join(home, "sessions", "broken"), { recursive: true }))
      yield* Effect.promise(() => writeFile(join(home, "sessions", "broken", "state.json"), "{\"version\":1,"))
      yield* Effect.promise(() => mkdir(join(home, "sessions", "wrong"), { recursive: true }))
      yield* Effect.promise(() => writeFile(join(home, "sessions", "wrong", "state.json"), "{\"version\":1,\"id\":\"wrong\"}"))

      const broken = yield* Effect.flip(store.open("broken"))
      assert.strictEqual(broken.reason, "Corrupt")
      assert.include(broken.detail, "session \"broken\"")
      assert.strictEqual((yield* Effect.flip(store.open("wrong"))).reason, "Corrupt")
      assert.strictEqual((yield* Effect.flip(store.open("empty-dir"))).reason, "NotFound")
      assert.deepStrictEqual((yield* store.list).map((s) => s.id), ["good"])
    }))

  it.effect("closing the store's scope closes the files its transcripts keep open", () =>
    Effect.gen(function*() {
      const home = yield* tempHome
      const wirePath = join(home, "sessions", "fd", "wire.jsonl")
      /** How many of this process's descriptors point at the wire file (Linux only; else -1). */
      const openCount = Effect.promise(async () => {
        const fds = await readdir("/proc/self/fd").catch(() => undefined)
        if (fds === undefined) return -1
        const targets = await Promise.all(fds.map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => "")))
        return targets.filter((t) => t === wirePath).length
      })
      const handle = yield* Effect.scoped(Effect.gen(function*() {
        const store = yield* FileSessionStore.make({ home })
        const handle = yield* store.create({ ...Samples.sampleSession, id: "fd" })
        yield* handle.transcript.append({ type: "notice", level: "info", message: "one" })
        yield* handle.transcript.sync
        const during = yield* openCount
        if (during !== -1) assert.strictEqual(during, 1)
        return handle
      }))
      const after = yield* openCount
      if (after !== -1) assert.strictEqual(after, 0)
      // A handle used after its store closed still works, opening the file per write.
      yield* handle.transcript.append({ type: "notice", level: "info", message: "two" })
      yield* handle.transcript.sync
      if (after !== -1) assert.strictEqual(yield* openCount, 0)
      assert.deepStrictEqual((yield* handle.transcript.read).records.map((r) => r.seq), [1, 2])
    }))

  it.effect("an unreadable task record is skipped; the others are returned", () =>
    Effect.gen(function*() {
      const { home, start } = yield* fixture
      const handle = yield* (yield* start).create({ ...Samples.sampleSession, id: "t" })
      yield* handle.writeTask("run-1", { ok: 1 })
      yield* Effect.promise(() => writeFile(join(home, "sessions", "t", "tasks", "run-0.json"), "{"))
      assert.deepStrictEqual(yield* handle.readTasks, [{ ok: 1 }])
    }))
})

describe("FileSessionStore state updates committed together", () => {
  it.effect("concurrent updates each return the state after their own change, and one that throws fails alone", () =>
    Effect.gen(function*() {
      const { home, start } = yield* fixture
      const handle = yield* (yield* start).create({ ...Samples.sampleSession, id: "batched" })
      const counterOf = (s: object) => ((s as { counter?: number }).counter ?? 0)
      const outcomes = yield* Effect.forEach(
        Array.from({ length: 50 }, (_, i) => i),
        (i) =>
          handle.updateState((s) => {
            if (i === 7) throw new Error("bad update")
            return { ...s, counter: counterOf(s) + 1 }
          }).pipe(Effect.map(counterOf), Effect.exit),
        { concurrency: "unbounded" }
      )
      const counters = outcomes.filter((o) => o._tag === "Success").map((o) => o.value)
      assert.strictEqual(outcomes.filter((o) => o._tag === "Failure").length, 1, "only the throwing update fails")
      assert.deepStrictEqual([...counters].sort((a, b) => a - b), Array.from({ length: 49 }, (_, i) => i + 1), "each caller sees its own increment")
      // A store of its own reads only what is on disk (another process's view).
      const onDisk = yield* (yield* (yield* start).open("batched")).readState
      assert.strictEqual(counterOf(onDisk), 49, "every other update reached the disk before updateState returned")
      assert.isFalse(existsSync(join(home, "sessions", "batched", "state.lock")), "state.lock is released")
    }))
})

describe("FileSessionStore state updates across processes", () => {
  it.live("updates from several processes at once are all kept (none overwrites another's)", () =>
    Effect.gen(function*() {
      const { home, start } = yield* fixture
      yield* (yield* start).create({ ...Samples.sampleSession, id: "shared" })
      const script = join(import.meta.dirname, "fixtures", "update-state.ts")
      const run = (tag: string) =>
        Effect.promise(() =>
          new Promise<number | null>((done) => {
            const child = spawn(process.execPath, [script, home, "shared", tag, "30"], { stdio: ["ignore", "ignore", "inherit"] })
            child.once("exit", done)
          })
        )
      const codes = yield* Effect.all(["a", "b", "c"].map(run), { concurrency: "unbounded" })
      assert.deepStrictEqual(codes, [0, 0, 0])
      const state = (yield* (yield* (yield* start).open("shared")).readState) as unknown as { items: Array<string> }
      assert.strictEqual(state.items.length, 90)
      for (const tag of ["a", "b", "c"]) assert.deepStrictEqual(state.items.filter((i) => i.startsWith(tag)), Array.from({ length: 30 }, (_, i) => `${tag}-${i}`))
      assert.isFalse(existsSync(join(home, "sessions", "shared", "state.lock")), "no lock is left behind")
    }), { timeout: 60_000 })
})

describe("FileSessionStore ownership lease (owner.lock)", () => {
  it.live("a lock held by a live process refuses; once that process is gone, the lock is taken over", () =>
    Effect.gen(function*() {
      const { home, start } = yield* fixture
      const store = yield* start
      const handle = yield* store.create({ ...Samples.sampleSession, id: "owned" })
      const lock = join(home, "sessions", "owned", "owner.lock")
      // Another process's lease: a real process, with its pid and start time.
      const holder = spawn("sleep", ["60"], { stdio: "ignore" })
      const pid = holder.pid!
      const lease = { pid, startTime: processStartTime(pid), host: hostname(), acquiredAt: "2026-11-30T00:00:00.000Z", token: "theirs" }
      yield* Effect.promise(() => writeFile(lock, JSON.stringify(lease)))
      const refused = yield* Effect.flip(Effect.scoped(handle.acquire))
      assert.strictEqual(refused.reason, "Owned")
      assert.include(refused.detail, `pid ${pid}`)
      assert.strictEqual((yield* handle.owner)?.pid, pid)
      holder.kill("SIGKILL")
      yield* Effect.promise(() => new Promise((done) => holder.once("exit", done)))
      assert.isUndefined(yield* handle.owner, "a dead owner owns nothing")
      const taken = yield* Effect.scoped(Effect.gen(function*() {
        const mine = yield* handle.acquire
        const onDisk = JSON.parse(yield* readText(lock)) as { pid: number }
        return { mine, onDisk }
      }))
      assert.strictEqual(taken.mine.pid, process.pid)
      assert.strictEqual(taken.onDisk.pid, process.pid)
      assert.isFalse(existsSync(lock), "released when the scope closed")
    }))

  it.live("a pid reused by another process does not keep a stale lock alive", () =>
    Effect.gen(function*() {
      const { home, start } = yield* fixture
      const handle = yield* (yield* start).create({ ...Samples.sampleSession, id: "reused" })
      // This very process's pid, but a start time it never had: the recorded owner is gone.
      const lease = { pid: process.pid, startTime: (processStartTime(process.pid) ?? 0) + 1, host: hostname(), acquiredAt: "", token: "old" }
      yield* Effect.promise(() => writeFile(join(home, "sessions", "reused", "owner.lock"), JSON.stringify(lease)))
      assert.isUndefined(yield* handle.owner)
      yield* Effect.scoped(handle.acquire)
    }))
})

/** Mode bits of every entry under `dir` (itself included), by path relative to it. */
const modes = (dir: string) =>
  Effect.promise(async () => {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true })
    const out: Record<string, { dir: boolean; mode: number }> = { ".": { dir: true, mode: (await stat(dir)).mode & 0o777 } }
    for (const e of entries) {
      const path = join(e.parentPath, e.name)
      out[path.slice(dir.length + 1)] = { dir: e.isDirectory(), mode: (await stat(path)).mode & 0o777 }
    }
    return out
  })

describe("FileSessionStore files are private", () => {
  // The widest umask there is: explicit modes, not the umask, keep the files private.
  for (const mask of [0o022, 0o000]) {
    it.effect(`directories are 0700 and files 0600 under umask ${mask.toString(8).padStart(3, "0")}`, () =>
      Effect.gen(function*() {
        const { home } = yield* fixture
        const before = process.umask(mask)
        yield* Effect.addFinalizer(() => Effect.sync(() => process.umask(before)))
        // A home that does not exist yet is made by the store, privately too.
        const fresh = join(home, "dsh")
        const store = yield* FileSessionStore.make({ home: fresh })
        const handle = yield* store.create({ ...Samples.sampleSession, id: "s1" })
        yield* Effect.forEach(Samples.sampleTurnEvents(1), (e) => handle.transcript.append(e), { discard: true })
        yield* handle.transcript.sync
        const child = yield* handle.child("explore-1")
        yield* child.transcript.append({ type: "notice", level: "info", message: "child" })
        yield* child.transcript.sync
        yield* child.writeMeta({ agent: "explore" })
        yield* handle.writeTask("run-1", { status: "running" })
        yield* handle.updateState((s) => ({ ...s, status: "completed" }))
        yield* Effect.scoped(handle.acquire)
        yield* handle.archiveChild("explore-1")
        const found = yield* modes(fresh)
        for (const path of ["sessions/s1/archive", "sessions/s1/tasks/run-1.json", "sessions/s1/agents/explore-1/meta.json", "sessions/s1/wire.jsonl"]) {
          assert.isDefined(found[path], path)
        }
        for (const [path, { dir, mode }] of Object.entries(found)) {
          assert.strictEqual(mode.toString(8), dir ? "700" : "600", path)
        }
      }))
  }
})

describe("FileSessionStore with a missing state.json", () => {
  const orphan = Effect.gen(function*() {
    const { home, start } = yield* fixture
    const store = yield* start
    const handle = yield* store.create({ ...Samples.sampleSession, id: "lost" })
    yield* Effect.forEach(Samples.sampleTurnEvents(1), (e) => handle.transcript.append(e), { discard: true })
    yield* handle.transcript.sync
    yield* Effect.promise(() => rm(join(home, "sessions", "lost", "state.json")))
    // A fresh store: the first one's cached handle would hide what a new process sees.
    return { home, store: yield* FileSessionStore.make({ home }) }
  })

  it.effect("is StateMissing on open and reported by unreadable; an empty directory is still a session being created", () =>
    Effect.gen(function*() {
      const { home, store } = yield* orphan
      yield* Effect.promise(() => mkdir(join(home, "sessions", "being-made")))
      const error = yield* Effect.flip(store.open("lost"))
      assert.strictEqual(error.reason, "StateMissing")
      assert.include(error.detail, join(home, "sessions", "lost", "state.json"))
      assert.deepStrictEqual((yield* store.unreadable).map((u) => u.id), ["lost"])
      assert.include((yield* store.unreadable)[0]!.error, "state.json is missing")
      assert.deepStrictEqual((yield* store.list).map((s) => s.id), [])
      assert.strictEqual((yield* Effect.flip(store.open("being-made"))).reason, "NotFound")
    }))

  it.effect("recover writes the rebuilt state (0600) and opens the session; the transcript is read through the handle", () =>
    Effect.gen(function*() {
      const { home, store } = yield* orphan
      let seen = 0
      const handle = yield* store.recover!("lost", (session) =>
        session.transcript.read.pipe(Effect.map(({ records }) => {
          seen = records.length
          return { version: 1 as const, id: "lost", agent: "agent", cwd: "/", model: "scripted", createdAt: records[0]!.ts, updatedAt: records.at(-1)!.ts, status: "completed" as const }
        })))
      assert.strictEqual(seen, 6)
      assert.strictEqual((yield* handle.readState).status, "completed")
      assert.strictEqual((yield* store.open("lost")).id, "lost")
      assert.deepStrictEqual((yield* store.unreadable), [])
      assert.strictEqual(((yield* Effect.promise(() => stat(join(home, "sessions", "lost", "state.json")))).mode & 0o777).toString(8), "600")
    }))

  it.effect("recover never replaces a state that exists, and is NotFound for no session at all", () =>
    Effect.gen(function*() {
      const { store } = yield* orphan
      yield* store.recover!("lost", (session) => Effect.map(session.transcript.read, () => ({ version: 1 as const, id: "lost", agent: "first", cwd: "/", model: "m", createdAt: "a", updatedAt: "a", status: "idle" as const })))
      const again = yield* store.recover!("lost", () => Effect.die("not called: the state is there"))
      assert.strictEqual((yield* again.readState).agent, "first")
      assert.strictEqual((yield* Effect.flip(store.recover!("nothing", () => Effect.die("not called")))).reason, "NotFound")
    }))

  it.effect("a rebuilt state that is not a valid state is refused, and nothing is written", () =>
    Effect.gen(function*() {
      const { home, store } = yield* orphan
      const error = yield* Effect.flip(store.recover!("lost", () => Effect.succeed({ id: "lost" } as never)))
      assert.strictEqual(error.reason, "Corrupt")
      assert.isFalse(existsSync(join(home, "sessions", "lost", "state.json")))
    }))
})

describe("FileSessionStore recover and the lease", () => {
  it.effect("a session a live process runs is not rebuilt under it (Owned)", () =>
    Effect.gen(function*() {
      const { home, start } = yield* fixture
      const store = yield* start
      const handle = yield* store.create({ ...Samples.sampleSession, id: "held" })
      yield* Effect.forEach(Samples.sampleTurnEvents(1), (e) => handle.transcript.append(e), { discard: true })
      yield* handle.transcript.sync
      yield* Effect.promise(() => rm(join(home, "sessions", "held", "state.json")))
      // This process holds the lease; another store (as another process would) must not rebuild.
      yield* handle.acquire
      const other = yield* FileSessionStore.make({ home })
      const error = yield* Effect.flip(other.recover!("held", () => Effect.die("not called: the session is owned")))
      assert.strictEqual(error.reason, "Owned")
      assert.isFalse(existsSync(join(home, "sessions", "held", "state.json")))
    }))
})
