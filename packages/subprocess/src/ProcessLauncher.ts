import { Context, type Duration, type Effect, type Scope, type Sink, type Stream } from "effect"
import type { SubprocessError } from "./SubprocessError.ts"

/** What to start and how. The command is run directly (no shell); pass `bash -c` yourself. */
export interface SpawnOptions {
  readonly command: string
  readonly args?: ReadonlyArray<string> | undefined
  readonly cwd?: string | undefined
  /**
   * Variables added on top of the scrubbed environment. Nothing else from the parent
   * passes except the allow-list (PATH, HOME, LANG, TERM, TMPDIR, USER, SHELL, …), and a
   * credential-looking name is never passed unless it is listed here.
   */
  readonly env?: Readonly<Record<string, string>> | undefined
  /** Replaces the default allow-list of inherited variable names. */
  readonly inheritEnv?: ReadonlyArray<string> | undefined
  /** Default `"pipe"` for `spawn`; `run` decides from `input`. */
  readonly stdin?: "pipe" | "ignore" | undefined
  /** Time between SIGTERM and SIGKILL when the process is stopped. Default 2 seconds. */
  readonly killGrace?: Duration.Input | undefined
  /** Bytes of stderr kept for error reports. Default 8 KiB. */
  readonly stderrTailBytes?: number | undefined
  /**
   * Whether the process (and its process group) must not outlive this one, even when this one
   * is killed with SIGKILL and runs no cleanup. Default true. The local launcher uses a
   * parent-death signal on Linux (`setpriv --pdeathsig KILL`) and a watchdog that kills the
   * group when this process's end of a pipe closes (Linux, macOS, BSD); see its README.
   */
  readonly dieWithParent?: boolean | undefined
}

/** How a process ended: a code, or the signal that ended it. */
export interface ExitInfo {
  readonly exitCode: number | null
  readonly signal: string | null
}

/**
 * A running child. It is a scoped resource: when its scope closes, the whole process tree
 * is stopped with the ladder (SIGTERM to the group, grace, SIGKILL).
 *
 * stdio is Effect-typed, as in `effect/process/ChildProcessSpawner`: `stdout` and `stderr` are
 * byte streams with one consumer each, `stdin` a sink. Nothing written between spawn and the
 * first read is lost: stdout backpressures the child (it blocks on a full pipe until read);
 * stderr, which most callers never read, keeps a bounded replay buffer until first read (the
 * oldest bytes go beyond it) and backpressures once read. `WebStdio.ts` adapts a handle to
 * Web or Node streams for protocol SDKs.
 */
export interface ChildProcessHandle {
  readonly pid: number | undefined
  /**
   * Writes to the child's stdin, which is ended when the upstream ends (EOF): run
   * `Stream.run(Stream.empty, child.stdin)` to close it. A write waits while the pipe is full.
   * Fails with `Io` when stdin is closed or was not connected (`stdin: "ignore"`).
   */
  readonly stdin: Sink.Sink<void, Uint8Array, never, SubprocessError>
  /** Raw bytes, never forwarded anywhere: protocol users (ACP, JSON-RPC) read it. Ends at EOF. */
  readonly stdout: Stream.Stream<Uint8Array, SubprocessError>
  /** Raw stderr bytes (see the replay buffer above); the tail below is kept either way. */
  readonly stderr: Stream.Stream<Uint8Array, SubprocessError>
  /**
   * The last bytes of stderr (a bounded ring buffer). After the process and its group are
   * gone it includes everything the process wrote.
   */
  readonly stderrTail: Effect.Effect<string>
  /** Waits for the process to exit. */
  readonly exit: Effect.Effect<ExitInfo>
  /** Stops the process and all of its descendants with the ladder; waits until it is gone. */
  readonly stop: Effect.Effect<void>
  /**
   * `stop` with at most `grace` between SIGTERM and SIGKILL, for an exit that must not wait on
   * the full grace (e.g. the parent is shutting down). A ladder already under way is hastened.
   */
  readonly stopWithin: (grace: Duration.Input) => Effect.Effect<void>
}

/**
 * A run to completion. Background processes the command leaves behind do not outlive it: when
 * the command exits (or times out) the rest of its process group is stopped with the ladder.
 */
export interface RunOptions extends SpawnOptions {
  /** Written to stdin, which is then closed. Without it stdin is not connected. */
  readonly input?: string | undefined
  /** After this, the whole tree is stopped and the result says `timedOut: true`. */
  readonly timeout?: Duration.Input | undefined
  /** Combined stdout+stderr bytes kept; the rest is dropped and `truncated` set. Default 1 MiB. */
  readonly maxOutputBytes?: number | undefined
}

/** The outcome of `run`; a non-zero exit or a timeout is data, not an error. */
export interface RunResult extends ExitInfo {
  readonly stdout: string
  readonly stderr: string
  readonly timedOut: boolean
  readonly truncated: boolean
  readonly durationMs: number
}

/** The one primitive of a launcher: start a process as a scoped handle. */
export type Spawn = (options: SpawnOptions) => Effect.Effect<ChildProcessHandle, SubprocessError, Scope.Scope>

/**
 * The process seam: a local process by default; ssh, containers or Kubernetes Jobs later,
 * speaking the same stdio. Nothing outside a launcher assumes a local PID. Only `spawn` is
 * written per launcher; `fromSpawn` derives `run` from it, so an ssh or container launcher
 * is one function (e.g. one that prefixes every command with `ssh host` and calls the local
 * launcher's `spawn`).
 */
export interface ProcessLauncherShape {
  readonly spawn: Spawn
  /** Runs to completion (or timeout, which stops the whole tree) and collects output. */
  readonly run: (options: RunOptions) => Effect.Effect<RunResult, SubprocessError>
}

export class ProcessLauncher extends Context.Service<ProcessLauncher, ProcessLauncherShape>()("@dsh/subprocess/ProcessLauncher") {}
