import type { ChildProcess } from "node:child_process"
import { stat } from "node:fs/promises"
import { resolve as resolvePath } from "node:path"
import type { Readable, Writable } from "node:stream"
import { Deferred, Duration, Effect, Layer, Option, Predicate } from "effect"
import { scrubEnvironment } from "./Environment.ts"
import { fromSpawn } from "./FromSpawn.ts"
import { ByteTail } from "./internal/Buffers.ts"
import { outputStream, stdinSink } from "./internal/NodeStdio.ts"
import { resolveCommand, startWatchdog, withParentDeathSignal } from "./internal/ParentDeath.ts"
import { groupAlive, pollUntil } from "./internal/ProcessGroup.ts"
import {
  type ChildProcessHandle,
  type ExitInfo,
  ProcessLauncher,
  type ProcessLauncherShape,
  type SpawnOptions
} from "./ProcessLauncher.ts"
import { SubprocessError } from "./SubprocessError.ts"

/** Defaults of the local launcher; per-call options override them. */
export interface LocalProcessLauncherOptions {
  /** Time between SIGTERM and SIGKILL. Default 2 seconds. */
  readonly killGrace?: Duration.Input | undefined
  /** Bytes of stderr kept for error reports. Default 8 KiB. */
  readonly stderrTailBytes?: number | undefined
  /** Bytes of output `run` keeps. Default 1 MiB. */
  readonly maxOutputBytes?: number | undefined
  /** Where inherited variables come from. Default `process.env`, read at each spawn. */
  readonly parentEnv?: (() => Readonly<Record<string, string | undefined>>) | undefined
  /** Default of `SpawnOptions.dieWithParent`: true. */
  readonly dieWithParent?: boolean | undefined
}

const DEFAULT_KILL_GRACE: Duration.Input = "2 seconds"
const DEFAULT_STDERR_TAIL_BYTES = 8 * 1024
/** Bytes of unread stdout before the child is paused; of stderr kept until its first read. */
const STDOUT_BUFFER_BYTES = 256 * 1024
const STDERR_REPLAY_BYTES = 256 * 1024
/** After SIGKILL a process can only linger in uninterruptible I/O; do not wait on it forever. */
const SIGKILL_WAIT: Duration.Input = "5 seconds"

/**
 * The part of an execa subprocess we use. Typing values as execa's `ResultPromise` costs about
 * 2 s of type-check per use, so the launcher talks to this narrow view instead.
 */
interface ExecaChild extends PromiseLike<unknown> {
  readonly nodeChildProcess: ChildProcess
  readonly stdin: Writable | null
  readonly stdout: Readable | null
  readonly stderr: Readable | null
  kill(signal?: NodeJS.Signals): boolean
}

/** A started child plus how to close our ends of its pipes. */
interface Launched {
  readonly handle: ChildProcessHandle
  readonly destroyStreams: Effect.Effect<void>
}

const ignore = (): void => {}

const describe = (options: SpawnOptions): string => [options.command, ...(options.args ?? [])].join(" ")

const spawnFailed = (command: string, detail: string) =>
  new SubprocessError({ reason: "SpawnFailed", command, detail })

/** Checks the working directory first: Node reports a missing cwd as ENOENT of the command. */
const checkCwd = (command: string, cwd: string | undefined): Effect.Effect<void, SubprocessError> =>
  cwd === undefined ? Effect.void : Effect.tryPromise({
    try: () => stat(cwd),
    catch: () => spawnFailed(command, `working directory does not exist: ${cwd}`)
  }).pipe(Effect.flatMap((s) =>
    s.isDirectory() ? Effect.void : Effect.fail(spawnFailed(command, `working directory is not a directory: ${cwd}`))
  ))

/** Turns execa's failed result (or a spawn error) into a readable detail. */
const spawnFailureDetail = (options: SpawnOptions, failure: unknown): string => {
  const code = Predicate.hasProperty(failure, "code") && Predicate.isString(failure.code) ? failure.code : undefined
  if (code === "ENOENT") return `command not found: ${options.command} (not on PATH, or not executable)`
  if (code === "EACCES") return `permission denied: ${options.command} is not executable`
  const message = Predicate.hasProperty(failure, "originalMessage") && Predicate.isString(failure.originalMessage)
    ? failure.originalMessage
    : Predicate.hasProperty(failure, "message") && Predicate.isString(failure.message)
    ? failure.message
    : String(failure)
  return `failed to start: ${message.split("\n")[0]}`
}

/**
 * The spawn options with the parent-death signal set (see `internal/ParentDeath.ts`): on Linux
 * the command runs under `setpriv --pdeathsig KILL`, so it is resolved on `PATH` first (a
 * missing command is still a spawn failure, not `setpriv`'s exit code). Unchanged elsewhere.
 */
const parentDeathWrapped = (options: SpawnOptions, env: Readonly<Record<string, string>>): Effect.Effect<SpawnOptions, SubprocessError> =>
  Effect.gen(function*() {
    if (withParentDeathSignal(options.command, []) === undefined) return options
    const resolved = resolveCommand(options.command, env.PATH, options.cwd)
    if (resolved === undefined) {
      return yield* spawnFailed(describe(options), options.command.includes("/") && (yield* exists(options.command, options.cwd))
        ? `permission denied: ${options.command} is not executable`
        : `command not found: ${options.command} (not on PATH, or not executable)`)
    }
    return { ...options, ...withParentDeathSignal(resolved, options.args ?? []) }
  })

const exists = (path: string, cwd: string | undefined): Effect.Effect<boolean> =>
  Effect.promise(() => stat(cwd === undefined ? path : resolvePath(cwd, path)).then(() => true, () => false))

type Execa = typeof import("execa").execa

// execa and its dependencies load on the first spawn, not at start-up: most CLI runs that
// reach their first model request never start a process.
let execaModule: Promise<typeof import("execa")> | undefined
const loadExeca: Effect.Effect<Execa> = Effect.promise(() => (execaModule ??= import("execa"))).pipe(Effect.map((m) => m.execa))

/** Creates the execa child and attaches every listener before any event can be missed. */
const startChild = (
  execa: Execa,
  options: SpawnOptions,
  env: Record<string, string>,
  exited: Deferred.Deferred<ExitInfo>,
  stderrClosed: Deferred.Deferred<void>
): ExecaChild => {
  const child: ExecaChild = execa(options.command, [...(options.args ?? [])], {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    env,
    extendEnv: false,
    reject: false,
    buffer: false,
    stdin: options.stdin ?? "pipe",
    stdout: "pipe",
    stderr: "pipe",
    // Own process group: signals reach grandchildren even after their parent exited.
    killDescendants: true,
    // The dispose ladder escalates itself; execa's `cleanup` still signals the group on our exit.
    forceKillAfterDelay: false,
    cleanup: true,
    stripFinalNewline: false,
    windowsHide: true
  })
  // reject: false settles with a result; this only guards against an unexpected rejection.
  child.then(ignore, ignore)
  child.nodeChildProcess.once("exit", (exitCode: number | null, signal: NodeJS.Signals | null) => {
    Deferred.doneUnsafe(exited, Effect.succeed({ exitCode, signal }))
  })
  // A child that exits before reading its input must not crash us with EPIPE.
  child.stdin?.on("error", ignore)
  if (child.stderr === null) Deferred.doneUnsafe(stderrClosed, Effect.void)
  else child.stderr.once("close", () => Deferred.doneUnsafe(stderrClosed, Effect.void))
  return child
}

/**
 * The local launcher: execa children in their own process group, with a scrubbed environment,
 * a stderr tail, and the dispose ladder (SIGTERM to the group, grace, SIGKILL to the group,
 * then wait until every member is gone).
 */
export const make = (defaults: LocalProcessLauncherOptions = {}): ProcessLauncherShape => {
  const parentEnv = defaults.parentEnv ?? (() => process.env)

  const launch = (options: SpawnOptions): Effect.Effect<Launched, SubprocessError> =>
    Effect.gen(function*() {
      const command = describe(options)
      yield* checkCwd(command, options.cwd)
      const env = scrubEnvironment(parentEnv(), { inherit: options.inheritEnv, add: options.env })
      const tail = new ByteTail(options.stderrTailBytes ?? defaults.stderrTailBytes ?? DEFAULT_STDERR_TAIL_BYTES)
      const exited = Deferred.makeUnsafe<ExitInfo>()
      const stderrClosed = Deferred.makeUnsafe<void>()
      const dieWithParent = options.dieWithParent ?? defaults.dieWithParent ?? true
      const started = dieWithParent ? yield* parentDeathWrapped(options, env) : options
      const execa = yield* loadExeca
      const child = yield* Effect.try({
        try: () => startChild(execa, started, env, exited, stderrClosed),
        catch: (error) => spawnFailed(command, spawnFailureDetail(options, error))
      })
      const pid = child.nodeChildProcess.pid
      if (pid === undefined) {
        // Node sets the pid synchronously on success; without one, execa settles with the failure.
        const result = yield* Effect.promise(() => Promise.resolve(child))
        return yield* spawnFailed(command, spawnFailureDetail(options, result))
      }
      // Kills the group if this process dies without stopping it (kill -9); dismissed once it is gone.
      const dismiss = dieWithParent ? startWatchdog(pid) : undefined
      const grace = options.killGrace ?? defaults.killGrace ?? DEFAULT_KILL_GRACE
      const gone = Deferred.await(exited).pipe(Effect.andThen(pollUntil(Effect.map(groupAlive(pid), (alive) => !alive))))
      const signal = (name: NodeJS.Signals) => Effect.sync(() => void child.kill(name))
      // Set by `stopWithin`: a shorter grace, which also cuts short a grace already being waited.
      const hasten = Deferred.makeUnsafe<Duration.Duration>()
      const ladder = Effect.gen(function*() {
        if (Deferred.isDoneUnsafe(exited) && !(yield* groupAlive(pid))) return
        yield* signal("SIGTERM")
        const hastened = Deferred.await(hasten).pipe(Effect.flatMap((short) => Effect.timeoutOption(gone, short)))
        if (Option.isSome(yield* Effect.raceFirst(Effect.timeoutOption(gone, grace), hastened))) return
        yield* signal("SIGKILL")
        yield* Effect.timeoutOption(gone, SIGKILL_WAIT)
      }).pipe(Effect.ensuring(Effect.sync(() => dismiss?.())), Effect.uninterruptible)
      // Shared, so `stop` and the scope's release run the ladder once.
      const stop = yield* Effect.cached(ladder)
      const handle: ChildProcessHandle = {
        pid,
        stdin: stdinSink(child.stdin, command),
        stdout: outputStream(child.stdout, { bufferBytes: STDOUT_BUFFER_BYTES, dropUnread: false }),
        stderr: outputStream(child.stderr, { bufferBytes: STDERR_REPLAY_BYTES, dropUnread: true, onChunk: (chunk) => tail.push(chunk) }),
        // Once the whole group is gone the last bytes are already in the pipe: read them first.
        // (A process that left the group could hold the pipe open, hence the bound.)
        stderrTail: Effect.gen(function*() {
          if (Deferred.isDoneUnsafe(exited) && !(yield* groupAlive(pid))) {
            yield* Effect.timeoutOption(Deferred.await(stderrClosed), grace)
          }
          return tail.text()
        }),
        exit: Deferred.await(exited),
        stop,
        stopWithin: (short) =>
          Effect.sync(() => Deferred.doneUnsafe(hasten, Effect.succeed(Duration.fromInputUnsafe(short)))).pipe(Effect.andThen(stop))
      }
      return {
        handle,
        destroyStreams: Effect.sync(() => {
          child.stdin?.destroy()
          child.stdout?.destroy()
          child.stderr?.destroy()
        })
      }
    })

  /** Release: stop the tree, then close our ends of the pipes (unread output is dropped). */
  const spawn: ProcessLauncherShape["spawn"] = (options) =>
    Effect.acquireRelease(launch(options), (l) => l.handle.stop.pipe(Effect.andThen(l.destroyStreams))).pipe(
      Effect.map((l) => l.handle),
      Effect.withSpan("ProcessLauncher.spawn", { attributes: { command: options.command } })
    )

  return ProcessLauncher.of(fromSpawn(spawn, { maxOutputBytes: defaults.maxOutputBytes, drainWait: defaults.killGrace }))
}

/** The local launcher as a layer, with the given defaults. */
export const layer = (defaults: LocalProcessLauncherOptions = {}): Layer.Layer<ProcessLauncher> =>
  Layer.succeed(ProcessLauncher, make(defaults))