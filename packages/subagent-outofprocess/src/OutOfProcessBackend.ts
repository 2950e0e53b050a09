import type { Events, Usage } from "@dsh/core"
import type { Vocabulary } from "@dsh/subagent"
import type { ProcessLauncher, SubprocessError } from "@dsh/subprocess"
import type { Duration, Effect, Schema, Scope } from "effect"

/** One run (a `start` or a `continue`) of an out-of-process child, as every hook sees it. */
export interface OutOfProcessRun {
  /** The provider context the service gave this run. */
  readonly context: Vocabulary.StartContext
  /** The model spec the child is asked to use: the request's, else its type's, else the parent's `provider:model`. */
  readonly modelSpec: string
}

/** What to start for a run: the launcher's spawn options, with the working directory always said. */
export interface LaunchPlan extends ProcessLauncher.SpawnOptions {
  readonly cwd: string
  /**
   * When the child answered its last prompt (its turn ended, by itself or by a confirmed
   * cancel): how long it may take to exit by itself after its stdin closes, before the
   * launcher's ladder (SIGTERM to its process group, grace, SIGKILL). Otherwise the ladder
   * starts at once.
   */
  readonly exitGrace: Duration.Input
}

/** The process the driver started for a run, handed to `connect`. */
export interface LaunchedChild {
  readonly child: ProcessLauncher.ChildProcessHandle
  readonly plan: LaunchPlan
  /** `command args…`, as `meta.json` records it; also what error messages name. */
  readonly commandLine: string
}

/** A protocol connection that is ready (its handshake answered), and who the child said it is. */
export interface Connected<C> {
  readonly connection: C
  /** Recorded as `meta.json`'s `agentInfo` (ACP `agentInfo`, the SDK's `serverInfo`). */
  readonly agentInfo?: unknown
}

/** One prompt sent to the child. */
export interface Turn {
  /** The child's own session (what `newSession` or `resume.reopen` returned). */
  readonly sessionId: string
  readonly text: string
  /**
   * Records one of the child's events in its transcript (text deltas excepted) and forwards it
   * to the child's live observers. Everything the parent should see of the turn goes here,
   * in order, before `prompt` returns.
   */
  readonly emit: (event: Events.AgentEvent) => Effect.Effect<void>
}

/** How a turn ended, as the child's runtime said (never inferred from its text). */
export interface TurnReport {
  readonly status: Events.RunStatus
  /** The child's final message of the turn. */
  readonly output: string
  /** Everything the turn used, the child's own descendants included. */
  readonly usage: Usage.Usage
  /** What the turn cost in US dollars, when the child itself said (it then wins over pricing). */
  readonly cost?: number | undefined
  readonly notes?: string | undefined
}

/**
 * How a continuable backend keeps a child: what it saves after creating the child's session
 * (stored by the service as an opaque, versioned envelope) and how a new connection reopens it.
 * A backend with this hook is continuable: its running children also hear the messages sent to
 * them, as further turns on the same connection, and with `keepAlive` a finished child's
 * process waits idle for the next message (warm) before it is closed.
 */
export interface ResumeHooks<C, E, S> {
  readonly version: number
  /** Decodes the saved data: the service refuses a `continue` whose envelope does not decode. */
  readonly schema: Schema.Decoder<S>
  /** What to save for a child whose session `newSession` just created on `connection`. */
  readonly save: (connection: C, sessionId: string) => S
  /** Reopens the saved session on a fresh connection (cold); returns its id. */
  readonly reopen: (connection: C, saved: S, run: OutOfProcessRun) => Effect.Effect<string, E>
  /**
   * Why a child saved as `saved` cannot be reopened on a fresh process (e.g. its agent cannot
   * load sessions), or undefined when it can. Asked before a `continue` that has no warm
   * process: the service then refuses the message as `Unsupported` with this reason.
   */
  readonly coldUnsupported?: ((saved: S) => string | undefined) | undefined
}

/**
 * An out-of-process backend as a record of hooks over the shared driver
 * (`makeOutOfProcessProvider`). Per run the driver calls, in order:
 * `launch` → (spawn through the `ProcessLauncher`) → `connect` → `newSession` or `resume.reopen`
 * → `prompt` (again for each message queued meanwhile, when continuable), and `cancel` when the
 * run is interrupted mid-turn. It owns everything the hooks do not: the transcript
 * (record-and-forward), `meta.json`, the one cleanup per run, the outcome of every fault and
 * the cancel ladder. Hooks fail with their typed error `E`; none may throw or sleep as a signal.
 *
 * - `C`: the backend's live connection (what `connect` returns);
 * - `E`: its typed error, worded for the parent by `describe`;
 * - `S`: its continuation data (only with `resume`).
 */
export interface OutOfProcessBackend<C, E, S = never> {
  /** The provider contract it implements (`SPECIFICATION_VERSION` of `@dsh/subagent`); the driver's provider carries it. */
  readonly specificationVersion: "v1"
  /** The provider's registry name. */
  readonly name: string
  readonly description: string
  /** What to start (and any preparation: state directories, config files). Runs before the process exists. */
  readonly launch: (run: OutOfProcessRun) => Effect.Effect<LaunchPlan, E>
  /**
   * Speaks the protocol over the started process up to readiness: the handshake's answer,
   * bounded by the backend's own timeout. Scoped to the run: releasing it closes the connection
   * (every pending request is rejected) before the process is stopped.
   */
  readonly connect: (launched: LaunchedChild, run: OutOfProcessRun) => Effect.Effect<Connected<C>, E, Scope.Scope>
  /** Creates the child's own session for a new run; returns its id. */
  readonly newSession: (connection: C, run: OutOfProcessRun) => Effect.Effect<string, E>
  /**
   * Runs one turn: sends the text, emits the child's events as they come, returns how it ended.
   * When the run is interrupted the driver calls `cancel` and then waits up to `cancelGrace`
   * for this to return (the child's final answer, with its usage); only then is it interrupted,
   * so it must stop cleanly when interrupted (e.g. close the turn's open records).
   */
  readonly prompt: (connection: C, turn: Turn) => Effect.Effect<TurnReport, E>
  /** Asks the child to stop the turn in flight in its session. Must not fail; may not be answered. */
  readonly cancel: (connection: C, sessionId: string) => Effect.Effect<void>
  /** How long `prompt` may take to return after `cancel`. */
  readonly cancelGrace: Duration.Input
  /** A fault worded for the parent (and its model): becomes the `failed` outcome's notes. */
  readonly describe: (error: E | SubprocessError.SubprocessError) => string
  /**
   * Who writes a turn's `turn-start`, user `message` and `turn-end` records: `"driver"` for
   * protocols without turn events (ACP), `"child"` when the child streams its own (the dsh SDK).
   */
  readonly turnEvents: "driver" | "child"
  /** Present for continuable backends. */
  readonly resume?: ResumeHooks<C, E, S> | undefined
  /**
   * How long a continuable child whose turn completed stays idle with its process and session
   * open (warm) for the next message; then it is closed (cold: `resume.reopen` on a new
   * process). Default 0: closed at once. Closing never delays the run's result: it happens in
   * the background of the session tree, whose end closes every warm child.
   */
  readonly keepAlive?: Duration.Input | undefined
}
