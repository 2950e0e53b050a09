import { ProcessLauncher, type SubprocessError, WebStdio } from "@dsh/subprocess"
import { type Duration, Effect, type Scope } from "effect"
import { DEFAULT_MAX_FRAME_BYTES } from "../Framing.ts"
import { makeTransport } from "./Transport.ts"
import { type ConnectOptions, connectTransport, type SdkClient } from "./ClientConnection.ts"
import { sdkError, type SdkError } from "../SdkError.ts"

export interface SpawnSdkOptions extends Omit<ConnectOptions, "input" | "output"> {
  /** The server command, e.g. `dsh` with args `["sdk"]`; run directly, without a shell. */
  readonly command: string
  readonly args?: ReadonlyArray<string> | undefined
  readonly cwd?: string | undefined
  /**
   * Variables added to the scrubbed environment. The child inherits only the launcher's
   * allow-list (PATH, HOME, locale, …): model credentials and `DSH_*` must be passed here.
   */
  readonly env?: Readonly<Record<string, string>> | undefined
  readonly inheritEnv?: ReadonlyArray<string> | undefined
  /** After stdin is closed, how long the server may take to exit by itself before the ladder. Default 2 seconds. */
  readonly exitGrace?: Duration.Input | undefined
  /** SIGTERM → SIGKILL grace of the ladder. Default: the launcher's (2 seconds). */
  readonly killGrace?: Duration.Input | undefined
}

/** A client of a server we started; `pid` is for diagnostics only (it may be remote). */
export interface SpawnedSdkClient extends SdkClient {
  readonly pid: number | undefined
}

/** The last lines of stderr, enough to say why a server died. */
const tailLines = (text: string, lines = 8): string => text.trimEnd().split("\n").slice(-lines).join("\n")

/** What `attach` needs besides the connection options: how error messages name the server. */
export interface AttachSdkOptions extends Omit<ConnectOptions, "input" | "output"> {
  /** Names the server in error messages, e.g. its command line. Default `the server`. */
  readonly label?: string | undefined
}

/**
 * Connects to an SDK server that is already running as `child` (started by the caller through
 * the `ProcessLauncher`) and performs the handshake; ready once it succeeds. Scoped: releasing
 * it closes the connection (the server sees EOF on stdin); stopping the process stays the
 * caller's. When the server dies, pending calls fail with `ConnectionClosed` naming its exit
 * status and the tail of its stderr.
 */
export const attach = (child: ProcessLauncher.ChildProcessHandle, options: AttachSdkOptions): Effect.Effect<SpawnedSdkClient, SdkError, Scope.Scope> =>
  Effect.gen(function*() {
    const label = options.label ?? "the server"
    const describeEnd = (detail: string) =>
      Effect.gen(function*() {
        // stdout closes a moment before the exit is reported; give it that moment.
        const exit = yield* Effect.timeoutOption(child.exit, "1 second")
        const status = exit._tag === "None"
          ? "closed its output but is still running"
          : exit.value.signal !== null
          ? `exited on signal ${exit.value.signal}`
          : `exited with code ${exit.value.exitCode ?? "unknown"}`
        const tail = tailLines(yield* child.stderrTail)
        return `${label}: ${detail}; the server ${status}${tail === "" ? "" : `; stderr: ${tail}`}`
      })
    // The framed transport speaks Node streams; the adapter keeps backpressure both ways.
    const io = yield* WebStdio.childNodeStdio(child)
    const transport = yield* makeTransport({ input: io.stdout, output: io.stdin, maxFrameBytes: options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES })
    const client = yield* connectTransport(transport, options, describeEnd).pipe(
      Effect.mapError((e) => (e.reason === "Timeout" ? sdkError("Timeout", `${label}: ${e.message}`) : e))
    )
    return { ...client, pid: child.pid }
  })

/**
 * Starts an SDK server through the `ProcessLauncher` and connects to it (`attach`); ready once
 * the handshake succeeds (there is no other readiness signal). Scoped: releasing it closes the
 * connection (the server sees EOF on stdin and should exit), waits up to `exitGrace`, then runs
 * the launcher's ladder (SIGTERM to the process group, grace, SIGKILL), so nothing it started
 * outlives it.
 */
export const spawn = (options: SpawnSdkOptions): Effect.Effect<SpawnedSdkClient, SdkError | SubprocessError.SubprocessError, Scope.Scope | ProcessLauncher.ProcessLauncher> =>
  Effect.gen(function*() {
    const launcher = yield* ProcessLauncher.ProcessLauncher
    const child = yield* launcher.spawn({
      command: options.command,
      args: options.args,
      cwd: options.cwd,
      env: options.env,
      inheritEnv: options.inheritEnv,
      killGrace: options.killGrace,
      stdin: "pipe"
    })
    // Finalizers run last-first: the connection closes (EOF on stdin), then this wait, then the ladder.
    yield* Effect.addFinalizer(() => Effect.timeoutOption(child.exit, options.exitGrace ?? "2 seconds"))
    return yield* attach(child, { ...options, label: [options.command, ...(options.args ?? [])].join(" ") })
  })
