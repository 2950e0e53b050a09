import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { killTree, LocalProcessLauncher, ProcessLauncher, processExitedError, SubprocessError } from "../src/index.ts"
import { isGone, readPids, survivors } from "../src/testing.ts"
import { grandchildScript, readUntil, tempDir } from "./support.ts"

const withLauncher = <A, E, R>(effect: Effect.Effect<A, E, R | ProcessLauncher>) =>
  Effect.provide(effect, LocalProcessLauncher.layer({ killGrace: "1 second" }))

describe("LocalProcessLauncher.run", () => {
  beforeAll(() => {
    process.env.SOME_API_KEY = "sk-parent-secret"
  })
  afterAll(() => {
    delete process.env.SOME_API_KEY
  })

  it.live("collects stdout, stderr and the exit code; feeds input", () =>
    withLauncher(Effect.gen(function*() {
      const launcher = yield* ProcessLauncher
      const result = yield* launcher.run({ command: "bash", args: ["-c", "cat; echo oops >&2; exit 7"], input: "hello\n" })
      assert.strictEqual(result.stdout, "hello\n")
      assert.strictEqual(result.stderr, "oops\n")
      assert.strictEqual(result.exitCode, 7)
      assert.isNull(result.signal)
      assert.isFalse(result.timedOut)
      assert.isFalse(result.truncated)
    })))

  it.live("timeout stops the whole tree and is reported as timedOut, not an error", () =>
    withLauncher(Effect.gen(function*() {
      const pids = join(tempDir(), "pids")
      const launcher = yield* ProcessLauncher
      const result = yield* launcher.run({
        command: "bash",
        args: ["-c", grandchildScript("wait"), "bash", pids],
        timeout: "2 seconds"
      })
      assert.isTrue(result.timedOut)
      assert.strictEqual(result.signal, "SIGTERM")
      assert.strictEqual(result.stdout, "ready\n")
      const recorded = readPids(pids)
      assert.lengthOf(recorded, 2)
      assert.deepStrictEqual(yield* survivors(recorded), [])
    })))

  it.live("returns when the command exits even if background grandchildren hold its pipes, and ends them", () =>
    withLauncher(Effect.gen(function*() {
      const pids = join(tempDir(), "pids")
      const launcher = yield* ProcessLauncher
      const result = yield* launcher.run({ command: "bash", args: ["-c", grandchildScript("exit"), "bash", pids] })
      assert.isFalse(result.timedOut)
      assert.strictEqual(result.exitCode, 0)
      assert.strictEqual(result.stdout, "ready\n")
      const recorded = readPids(pids)
      assert.lengthOf(recorded, 2)
      assert.deepStrictEqual(yield* survivors(recorded), [])
    })))

  it.live("caps output at maxOutputBytes and sets truncated", () =>
    withLauncher(Effect.gen(function*() {
      const launcher = yield* ProcessLauncher
      const result = yield* launcher.run({
        command: "bash",
        args: ["-c", "head -c 200000 /dev/zero | tr '\\0' a"],
        maxOutputBytes: 1000
      })
      assert.isTrue(result.truncated)
      assert.strictEqual(result.stdout, "a".repeat(1000))
      assert.strictEqual(result.exitCode, 0)
    })))

  it.live("a parent-env secret is not visible to the child unless passed in env (add)", () =>
    withLauncher(Effect.gen(function*() {
      const launcher = yield* ProcessLauncher
      const hidden = yield* launcher.run({ command: "env" })
      assert.notInclude(hidden.stdout, "SOME_API_KEY")
      assert.notInclude(hidden.stdout, "sk-parent-secret")
      assert.match(hidden.stdout, /^PATH=/m)
      const listed = yield* launcher.run({ command: "env", inheritEnv: ["PATH", "SOME_API_KEY"] })
      assert.notInclude(listed.stdout, "SOME_API_KEY")
      const passed = yield* launcher.run({ command: "env", env: { SOME_API_KEY: "sk-explicit" } })
      assert.match(passed.stdout, /^SOME_API_KEY=sk-explicit$/m)
    })))

  it.live("a missing command is a typed SpawnFailed error", () =>
    withLauncher(Effect.gen(function*() {
      const launcher = yield* ProcessLauncher
      const error = yield* Effect.flip(launcher.run({ command: "dsh-no-such-command-xyz" }))
      assert.instanceOf(error, SubprocessError)
      assert.strictEqual(error.reason, "SpawnFailed")
      assert.include(error.detail, "command not found: dsh-no-such-command-xyz")
    })))

  it.live("a missing or non-directory cwd is a typed SpawnFailed error naming the directory", () =>
    withLauncher(Effect.gen(function*() {
      const launcher = yield* ProcessLauncher
      const missing = yield* Effect.flip(launcher.run({ command: "true", cwd: "/nonexistent/dsh-dir" }))
      assert.strictEqual(missing.reason, "SpawnFailed")
      assert.strictEqual(missing.detail, "working directory does not exist: /nonexistent/dsh-dir")
      const file = yield* Effect.flip(launcher.run({ command: "true", cwd: "/etc/hostname" }))
      assert.strictEqual(file.detail, "working directory is not a directory: /etc/hostname")
    })))
})

describe("LocalProcessLauncher.spawn", () => {
  it.live("stdout stays a readable stream for protocols; closing the scope stops the child", () =>
    withLauncher(Effect.gen(function*() {
      const launcher = yield* ProcessLauncher
      const pid = yield* Effect.scoped(Effect.gen(function*() {
        const child = yield* launcher.spawn({ command: "cat" })
        child.stdin?.write("ping\n")
        assert.strictEqual(yield* readUntil(child.stdout, "\n"), "ping\n")
        return child.pid!
      }))
      assert.deepStrictEqual(yield* survivors([pid]), [])
    })))

  it.live("closing the scope kills grandchildren", () =>
    withLauncher(Effect.gen(function*() {
      const pids = join(tempDir(), "pids")
      const launcher = yield* ProcessLauncher
      const parent = yield* Effect.scoped(Effect.gen(function*() {
        const child = yield* launcher.spawn({ command: "bash", args: ["-c", grandchildScript("wait"), "bash", pids] })
        yield* readUntil(child.stdout, "ready")
        return child.pid!
      }))
      const recorded = readPids(pids)
      assert.lengthOf(recorded, 2)
      assert.deepStrictEqual(yield* survivors([parent, ...recorded]), [])
    })))

  it.live("stop ends grandchildren whose parent already exited", () =>
    withLauncher(Effect.gen(function*() {
      const pids = join(tempDir(), "pids")
      const launcher = yield* ProcessLauncher
      const child = yield* launcher.spawn({ command: "bash", args: ["-c", grandchildScript("exit"), "bash", pids] })
      yield* readUntil(child.stdout, "ready")
      const exit = yield* child.exit
      assert.strictEqual(exit.exitCode, 0)
      const recorded = readPids(pids)
      assert.lengthOf(recorded, 2)
      assert.isFalse(recorded.some(isGone), "the orphaned grandchildren are still running before stop")
      yield* child.stop
      assert.deepStrictEqual(yield* survivors(recorded), [])
    })))

  it.live("the ladder escalates to SIGKILL when SIGTERM is ignored", () =>
    Effect.gen(function*() {
      const pids = join(tempDir(), "pids")
      const launcher = LocalProcessLauncher.make({ killGrace: "200 millis" })
      const child = yield* launcher.spawn({ command: "bash", args: ["-c", grandchildScript("ignore-term"), "bash", pids] })
      yield* readUntil(child.stdout, "ready")
      yield* child.stop
      assert.strictEqual((yield* child.exit).signal, "SIGKILL")
      assert.deepStrictEqual(yield* survivors([child.pid!, ...readPids(pids)]), [])
    }))

  it.live("keeps a bounded stderr tail for the error of a failing child", () =>
    withLauncher(Effect.gen(function*() {
      const launcher = yield* ProcessLauncher
      const child = yield* launcher.spawn({
        command: "bash",
        args: ["-c", "for i in $(seq 1 3000); do echo \"line $i\" >&2; done; exit 3"],
        stdin: "ignore",
        stderrTailBytes: 1024
      })
      const exit = yield* child.exit
      const tail = yield* child.stderrTail
      assert.strictEqual(exit.exitCode, 3)
      assert.isAtMost(Buffer.byteLength(tail), 1024)
      assert.isTrue(tail.endsWith("line 3000\n"))
      assert.notInclude(tail, "line 1\n")
      const error = processExitedError("bash", exit, tail)
      assert.strictEqual(error.reason, "ProcessExited")
      assert.strictEqual(error.detail, "exited with code 3")
      assert.strictEqual(error.stderrTail, tail)
    })))
})

describe("killTree", () => {
  it.live("signals a running process and its descendants by pid", () =>
    withLauncher(Effect.gen(function*() {
      const pids = join(tempDir(), "pids")
      const launcher = yield* ProcessLauncher
      const child = yield* launcher.spawn({ command: "bash", args: ["-c", grandchildScript("wait"), "bash", pids] })
      yield* readUntil(child.stdout, "ready")
      yield* killTree(child.pid!, "SIGKILL")
      assert.strictEqual((yield* child.exit).signal, "SIGKILL")
      assert.deepStrictEqual(yield* survivors([child.pid!, ...readPids(pids)]), [])
    })))
})
