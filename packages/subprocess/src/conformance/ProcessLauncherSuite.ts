/**
 * The behaviour every `ProcessLauncher` must show, written once and run against each
 * launcher (the local one; ssh, containers or Jobs later).
 */
import { effectTests } from "@dsh/core/testing"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { type Duration, Effect, Fiber, type Layer, Stream } from "effect"
import { ProcessLauncher } from "../ProcessLauncher.ts"
import { processExitedError, SubprocessError } from "../SubprocessError.ts"
import { grandchildScript, readUntil, tempPidFile, writeText } from "../testing/ChildScripts.ts"
import { isGone, readPids, survivors } from "../testing/ProcessChecks.ts"

const test = effectTests(it)

/** A credential-looking variable the suite puts in `process.env`; no child may see it unless passed. */
const SECRET_NAME = "SOME_API_KEY"
const SECRET_VALUE = "sk-parent-secret"

/** Provides the launcher under test to one test's effect. */
const launcherProvider = (launcher: Layer.Layer<ProcessLauncher>) => <A, E, R>(effect: Effect.Effect<A, E, R | ProcessLauncher>) =>
  Effect.provide(effect, launcher)

type WithLauncher = ReturnType<typeof launcherProvider>

/** `bash -c script`, with `args` as its `$0 $1 …`: most children here are shell scripts. */
const bash = (script: string, ...args: ReadonlyArray<string>) => ({ command: "bash", args: ["-c", script, ...args] })

/** `run` of a bash child that starts two grandchildren (`grandchildScript(mode)`); `pids` is where they are recorded. */
const runGrandparent = (mode: Parameters<typeof grandchildScript>[0], timeout?: Duration.Input) =>
  Effect.gen(function*() {
    const pids = yield* tempPidFile
    const launcher = yield* ProcessLauncher
    const result = yield* launcher.run({ ...bash(grandchildScript(mode), "bash", pids), timeout })
    return { pids, result }
  })

/** The grandchildren's pids the script recorded; fewer than both would make a survivor check vacuous. */
const recordedGrandchildren = (pids: string): Array<number> => {
  const recorded = readPids(pids)
  assert.lengthOf(recorded, 2, "the script recorded both grandchildren")
  return recorded
}

/** Both recorded grandchildren, and `others`, are gone (within `survivors`' polling). */
const assertGrandchildrenGone = (pids: string, message: string, others: ReadonlyArray<number> = []) =>
  Effect.gen(function*() {
    const recorded = recordedGrandchildren(pids)
    assert.deepStrictEqual(yield* survivors([...others, ...recorded]), [], message)
  })

/** `run`: stdio, exit codes and signals, timeout, leftover grandchildren, output cap, environment, spawn failures. */
const runTests = (withLauncher: WithLauncher): void => {
  beforeAll(() => {
    process.env[SECRET_NAME] = SECRET_VALUE
  })
  afterAll(() => {
    delete process.env[SECRET_NAME]
  })

  test.live("collects stdout, stderr and the exit code; feeds input", () =>
    withLauncher(Effect.gen(function*() {
      const launcher = yield* ProcessLauncher
      const result = yield* launcher.run({ ...bash("cat; echo oops >&2; exit 7"), input: "hello\n" })
      assert.strictEqual(result.stdout, "hello\n", "stdout is the input, echoed by cat")
      assert.strictEqual(result.stderr, "oops\n", "stderr is collected apart from stdout")
      assert.strictEqual(result.exitCode, 7, "a non-zero exit code is data")
      assert.isNull(result.signal, "no signal for a process that exited by itself")
      assert.isFalse(result.timedOut, "timedOut is false without a timeout")
      assert.isFalse(result.truncated, "truncated is false for small output")
    })))

  test.live("reports the signal that ended a process", () =>
    withLauncher(Effect.gen(function*() {
      const launcher = yield* ProcessLauncher
      const result = yield* launcher.run(bash("echo before; kill -USR1 $$"))
      assert.strictEqual(result.signal, "SIGUSR1", "the signal that ended the process")
      assert.isNull(result.exitCode, "a process ended by a signal has no exit code")
      assert.strictEqual(result.stdout, "before\n", "output written before the signal is kept")
      assert.isFalse(result.timedOut, "a signal is not a timeout")
    })))

  test.live("timeout stops the whole tree and is reported as timedOut, not an error", () =>
    withLauncher(Effect.gen(function*() {
      const { pids, result } = yield* runGrandparent("wait", "2 seconds")
      assert.isTrue(result.timedOut, "a command still running at the timeout is timedOut")
      assert.strictEqual(result.signal, "SIGTERM", "the ladder's SIGTERM ended it")
      assert.strictEqual(result.stdout, "ready\n", "output written before the timeout is kept")
      yield* assertGrandchildrenGone(pids, "no grandchild outlives the timeout")
    })))

  test.live("returns when the command exits even if background grandchildren hold its pipes, and ends them", () =>
    withLauncher(Effect.gen(function*() {
      const { pids, result } = yield* runGrandparent("exit")
      assert.isFalse(result.timedOut, "no timeout was set")
      assert.strictEqual(result.exitCode, 0, "the command's own exit code")
      assert.strictEqual(result.stdout, "ready\n", "the command's output")
      yield* assertGrandchildrenGone(pids, "background grandchildren do not outlive run")
    })))

  test.live("caps output at maxOutputBytes and sets truncated", () =>
    withLauncher(Effect.gen(function*() {
      const launcher = yield* ProcessLauncher
      const result = yield* launcher.run({ ...bash("head -c 200000 /dev/zero | tr '\\0' a"), maxOutputBytes: 1000 })
      assert.isTrue(result.truncated, "200000 bytes over a 1000-byte cap is truncated")
      assert.strictEqual(result.stdout, "a".repeat(1000), "exactly the first maxOutputBytes bytes are kept")
      assert.strictEqual(result.exitCode, 0, "truncation does not change the exit code")
    })))

  test.live("a parent-env secret is not visible to the child unless passed in env (add)", () =>
    withLauncher(Effect.gen(function*() {
      const launcher = yield* ProcessLauncher
      const hidden = yield* launcher.run({ command: "env" })
      assert.notInclude(hidden.stdout, SECRET_NAME, "a credential-looking parent variable is not inherited")
      assert.notInclude(hidden.stdout, SECRET_VALUE, "nor is its value")
      assert.match(hidden.stdout, /^PATH=/m, "PATH is inherited by default")
      const listed = yield* launcher.run({ command: "env", inheritEnv: ["PATH", SECRET_NAME] })
      assert.notInclude(listed.stdout, SECRET_NAME, "a credential-looking name is not inherited even when listed in inheritEnv")
      const passed = yield* launcher.run({ command: "env", env: { [SECRET_NAME]: "sk-explicit" } })
      assert.match(passed.stdout, new RegExp(`^${SECRET_NAME}=sk-explicit$`, "m"), "a variable passed in env reaches the child")
    })))

  test.live("a missing command is a typed SpawnFailed error", () =>
    withLauncher(Effect.gen(function*() {
      const launcher = yield* ProcessLauncher
      const error = yield* Effect.flip(launcher.run({ command: "dsh-no-such-command-xyz" }))
      assert.instanceOf(error, SubprocessError, "spawn failures are SubprocessErrors")
      assert.strictEqual(error.reason, "SpawnFailed", "a missing command is SpawnFailed")
      assert.include(error.detail, "command not found: dsh-no-such-command-xyz", "the detail names the missing command")
    })))

  test.live("a missing or non-directory cwd is a typed SpawnFailed error naming the directory", () =>
    withLauncher(Effect.gen(function*() {
      const launcher = yield* ProcessLauncher
      const missing = yield* Effect.flip(launcher.run({ command: "true", cwd: "/nonexistent/dsh-dir" }))
      assert.strictEqual(missing.reason, "SpawnFailed", "a missing cwd is SpawnFailed")
      assert.strictEqual(missing.detail, "working directory does not exist: /nonexistent/dsh-dir", "the detail names the directory")
      const file = yield* Effect.flip(launcher.run({ command: "true", cwd: "/etc/hostname" }))
      assert.strictEqual(file.reason, "SpawnFailed", "a cwd that is a file is SpawnFailed")
      assert.strictEqual(file.detail, "working directory is not a directory: /etc/hostname", "the detail names the file")
    })))
}

/** `spawn`'s stdio: a sink and streams, EOF, output kept until read, backpressure, exit status. */
const spawnStdioTests = (withLauncher: WithLauncher): void => {
  test.live("stdin is a sink and stdout a stream for protocols; closing the scope stops the child", () =>
    withLauncher(Effect.gen(function*() {
      const launcher = yield* ProcessLauncher
      const pid = yield* Effect.scoped(Effect.gen(function*() {
        const child = yield* launcher.spawn({ command: "cat" })
        yield* writeText(child.stdin, "ping\n")
        assert.strictEqual(yield* readUntil(child.stdout, "\n"), "ping\n", "what was written to stdin comes back on stdout")
        assert.isDefined(child.pid, "a spawned child has a pid")
        return child.pid!
      }))
      assert.deepStrictEqual(yield* survivors([pid]), [], "the child is gone once its scope closed")
    })))

  test.live("a stream ending into stdin is EOF for the child; stdout ends after the last byte", () =>
    withLauncher(Effect.gen(function*() {
      const launcher = yield* ProcessLauncher
      const child = yield* launcher.spawn(bash("cat; echo done"))
      const lines = ["one\n", "two\n"].map((l) => new TextEncoder().encode(l))
      yield* Stream.run(Stream.fromIterable(lines), child.stdin)
      const out = yield* Stream.mkString(Stream.decodeText(child.stdout))
      assert.strictEqual(out, "one\ntwo\ndone\n", "cat saw EOF after the stream's last chunk and the shell went on")
      assert.strictEqual((yield* child.exit).exitCode, 0, "the child exited by itself after EOF")
    })))

  test.live("stdout and stderr written before the first read are not lost", () =>
    withLauncher(Effect.gen(function*() {
      const launcher = yield* ProcessLauncher
      const child = yield* launcher.spawn({ ...bash("echo out; echo err >&2"), stdin: "ignore" })
      // Read only after the child is gone: everything it wrote must still be there.
      yield* child.exit
      const [out, err] = yield* Effect.all([
        Stream.mkString(Stream.decodeText(child.stdout)),
        Stream.mkString(Stream.decodeText(child.stderr))
      ], { concurrency: 2 })
      assert.strictEqual(out, "out\n", "stdout from before the first read")
      assert.strictEqual(err, "err\n", "stderr from before the first read")
      assert.strictEqual(yield* child.stderrTail, "err\n", "the tail holds it too")
    })))

  test.live("a large stdout arrives whole, with the child held back while it is not read", () =>
    withLauncher(Effect.gen(function*() {
      const launcher = yield* ProcessLauncher
      const size = 8 * 1024 * 1024
      const child = yield* launcher.spawn({ ...bash(`head -c ${size} /dev/zero; echo finished >&2`), stdin: "ignore" })
      // Unread, a pipe holds far less than 8 MiB: the writer must wait (backpressure), not exit.
      const early = yield* Effect.timeoutOption(child.exit, "300 millis")
      assert.isTrue(early._tag === "None", "the child waits while its output is not read")
      const total = yield* Stream.runFold(child.stdout, () => 0, (n, chunk) => n + chunk.length)
      assert.strictEqual(total, size, "every byte arrives, none dropped")
      assert.strictEqual((yield* child.exit).exitCode, 0, "the child finished once read")
      assert.strictEqual(yield* Stream.mkString(Stream.decodeText(child.stderr)), "finished\n", "stderr after the large output")
    })))

  test.live("exit reports the exit code, or the signal that ended the process", () =>
    withLauncher(Effect.gen(function*() {
      const launcher = yield* ProcessLauncher
      const coded = yield* launcher.spawn({ ...bash("exit 5"), stdin: "ignore" })
      assert.deepStrictEqual(yield* coded.exit, { exitCode: 5, signal: null }, "a process that exits has its code and no signal")
      const signalled = yield* launcher.spawn({ ...bash("kill -USR1 $$"), stdin: "ignore" })
      assert.deepStrictEqual(yield* signalled.exit, { exitCode: null, signal: "SIGUSR1" }, "a process ended by a signal has the signal and no code")
    })))
}

/** A bash child that starts two grandchildren (`grandchildScript(mode)`), once it says "ready". */
const spawnGrandparent = (pids: string, mode: Parameters<typeof grandchildScript>[0], killGrace?: Duration.Input) =>
  Effect.gen(function*() {
    const launcher = yield* ProcessLauncher
    const child = yield* launcher.spawn({ ...bash(grandchildScript(mode), "bash", pids), killGrace })
    yield* readUntil(child.stdout, "ready")
    return child
  })

/** `spawn`'s stopping: scope release, orphaned grandchildren, the SIGTERM → SIGKILL ladder, the stderr tail. */
const spawnStopTests = (withLauncher: WithLauncher): void => {
  test.live("closing the scope kills grandchildren", () =>
    withLauncher(Effect.gen(function*() {
      const pids = yield* tempPidFile
      const parent = yield* Effect.scoped(Effect.map(spawnGrandparent(pids, "wait"), (child) => child.pid!))
      yield* assertGrandchildrenGone(pids, "the child and its grandchildren are gone once the scope closed", [parent])
    })))

  test.live("stop ends grandchildren whose parent already exited", () =>
    withLauncher(Effect.gen(function*() {
      const pids = yield* tempPidFile
      const child = yield* spawnGrandparent(pids, "exit")
      const exit = yield* child.exit
      assert.strictEqual(exit.exitCode, 0, "the parent exited by itself")
      const recorded = recordedGrandchildren(pids)
      assert.isFalse(recorded.some(isGone), "the orphaned grandchildren are still running before stop")
      yield* child.stop
      assert.deepStrictEqual(yield* survivors(recorded), [], "stop ended the orphaned grandchildren")
    })))

  test.live("the ladder escalates to SIGKILL after killGrace when SIGTERM is ignored", () =>
    withLauncher(Effect.gen(function*() {
      const pids = yield* tempPidFile
      const child = yield* spawnGrandparent(pids, "ignore-term", "200 millis")
      yield* child.stop
      assert.strictEqual((yield* child.exit).signal, "SIGKILL", "a child that ignores SIGTERM is killed with SIGKILL")
      assert.deepStrictEqual(yield* survivors([child.pid!, ...readPids(pids)]), [], "the whole tree is gone after the ladder")
    })))

  test.live("stopWithin cuts the grace short, even of a ladder already waiting on SIGTERM", () =>
    withLauncher(Effect.gen(function*() {
      const pids = yield* tempPidFile
      // A grace no test could wait out: only the hastened one lets this test end.
      const child = yield* spawnGrandparent(pids, "ignore-term", "1 hour")
      const stopping = yield* Effect.forkChild(child.stop)
      yield* child.stopWithin("50 millis")
      yield* Fiber.join(stopping)
      assert.strictEqual((yield* child.exit).signal, "SIGKILL", "a child that ignores SIGTERM is killed after the short grace")
      assert.deepStrictEqual(yield* survivors([child.pid!, ...readPids(pids)]), [], "the whole tree is gone")
    })))

  test.live("keeps a bounded stderr tail for the error of a failing child", () =>
    withLauncher(Effect.gen(function*() {
      const launcher = yield* ProcessLauncher
      const child = yield* launcher.spawn({
        ...bash("for i in $(seq 1 3000); do echo \"line $i\" >&2; done; exit 3"),
        stdin: "ignore",
        stderrTailBytes: 1024
      })
      const exit = yield* child.exit
      const tail = yield* child.stderrTail
      assert.strictEqual(exit.exitCode, 3, "the child's exit code")
      assert.isAtMost(Buffer.byteLength(tail), 1024, "the tail keeps at most stderrTailBytes bytes")
      assert.isTrue(tail.endsWith("line 3000\n"), "the tail ends with the last line written")
      assert.notInclude(tail, "line 1\n", "the first lines were dropped")
      const error = processExitedError("bash", exit, tail)
      assert.strictEqual(error.reason, "ProcessExited", "processExitedError builds a ProcessExited error")
      assert.strictEqual(error.detail, "exited with code 3", "its detail is the exit status")
      assert.strictEqual(error.stderrTail, tail, "it carries the stderr tail")
    })))
}

/**
 * Registers the launcher conformance tests under `describe(name)`. Call it once, at the top
 * level of a vitest file: `processLauncherSuite("LocalProcessLauncher", LocalProcessLauncher.layer())`.
 * Covers `run` (stdio, exit codes and signals, output cap, timeout, leftover grandchildren,
 * environment scrubbing, typed spawn failures) and `spawn` (stdio round trip, scope release,
 * `stop` of orphaned grandchildren, the SIGTERM → SIGKILL ladder, the bounded stderr tail).
 *
 * Gotchas: the children are `bash`, `cat`, `env`, `head`, `tr`, `sleep` and `true`, and pids
 * are checked with `kill(pid, 0)`, so the launcher must run them where this process can see
 * them. The suite sets `process.env.SOME_API_KEY` for its duration: the "parent environment"
 * a launcher scrubs is this process's.
 */
export const processLauncherSuite = (name: string, launcher: Layer.Layer<ProcessLauncher>): void => {
  const withLauncher = launcherProvider(launcher)

  describe(name, () => {
    describe("run", () => runTests(withLauncher))
    describe("spawn", () => {
      spawnStdioTests(withLauncher)
      spawnStopTests(withLauncher)
    })
  })
}
