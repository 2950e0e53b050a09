import type { Vocabulary } from "@dsh/subagent"
import { type OutOfProcessBackend, OutOfProcessDriver } from "@dsh/subagent-outofprocess"
import type { ProcessLauncher, Sandbox } from "@dsh/subprocess"
import { type Duration, Effect } from "effect"
import { ACP_PROVIDER, type AcpAgentConfig, acpAgentTypes, acpTypeName } from "./AcpAgentConfig.ts"
import { AcpChildError } from "./AcpChildError.ts"
import { ACP_CONTINUATION_VERSION, AcpContinuation } from "./AcpContinuation.ts"
import { type AcpChild, cancelTurn, connectAcpChild, continuationOf, openSession, promptTurn, reopenSession } from "./internal/AcpChild.ts"
import { launchPlan } from "./internal/Launch.ts"

/** The `_meta` key of a denied permission's reason, shared with the ACP server side. */
export { DENY_REASON_META } from "./internal/Connection.ts"

export interface AcpProviderOptions {
  /** The ACP agents this provider runs, by type name `acp:<name>`. */
  readonly agents: ReadonlyArray<AcpAgentConfig>
  /** Where `passEnv` names are read from. Default `process.env`. */
  readonly parentEnv?: Readonly<Record<string, string | undefined>> | undefined
  /** How long an agent may take to answer `initialize` (readiness). Default 20 seconds. */
  readonly initializeTimeout?: Duration.Input | undefined
  /** After `session/cancel`, how long to wait for the `cancelled` answer before stopping the process. Default 2 seconds. */
  readonly cancelGrace?: Duration.Input | undefined
  /** SIGTERM → SIGKILL grace for the agent's process group. Default: the launcher's. */
  readonly killGrace?: Duration.Input | undefined
  /** The largest frame accepted from an agent. Default 16 MiB. */
  readonly maxMessageBytes?: number | undefined
  /** The sandbox that agents with `sandbox: true` run in (`makeSandbox` of `@dsh/subprocess`). */
  readonly sandbox?: Sandbox.SandboxShape | undefined
  /**
   * How long a child whose turn completed stays idle and warm (its process and ACP session
   * open) for the next message to it; then it is closed, and a later message reloads its
   * session on a new process (`session/load`) if its agent advertised `loadSession`.
   * Default 60 seconds (`[acp] keep_alive_seconds`); 0 closes every child when its run ends.
   */
  readonly keepAlive?: Duration.Input | undefined
}

/**
 * The `acp` backend as hooks over the out-of-process driver: launch the configured command,
 * `initialize` (readiness), `session/new` in its cwd with its MCP servers, `session/prompt`
 * with the task, `session/cancel` to stop; continued warm on the kept process, or cold with
 * `session/load`. ACP has no turn events of its own, so the driver frames the turn.
 */
const acpChildBackend = (options: AcpProviderOptions): OutOfProcessBackend.OutOfProcessBackend<AcpChild, AcpChildError, AcpContinuation> => {
  const byType = new Map(options.agents.map((a) => [acpTypeName(a.name), a]))
  const agentOf = (run: OutOfProcessBackend.OutOfProcessRun): Effect.Effect<AcpAgentConfig, AcpChildError> => {
    const agent = byType.get(run.context.type.name)
    return agent !== undefined
      ? Effect.succeed(agent)
      : Effect.fail(new AcpChildError({ reason: "Setup", message: `no ACP agent is configured for "${run.context.type.name}"` }))
  }
  return {
    specificationVersion: "v1",
    name: ACP_PROVIDER,
    description: "an out-of-process child driven over the Agent Client Protocol (any ACP agent command); continuable warm, or cold by session/load",
    turnEvents: "driver",
    cancelGrace: options.cancelGrace ?? "2 seconds",
    keepAlive: options.keepAlive ?? "60 seconds",
    describe: (error) => (error._tag === "SubprocessError" ? `cannot start the ACP agent: ${error.message}` : error.message),
    launch: (run) =>
      Effect.flatMap(agentOf(run), (agent) => launchPlan({ agent, run, parentEnv: options.parentEnv ?? process.env, killGrace: options.killGrace, sandbox: options.sandbox })),
    connect: (launched, run) =>
      Effect.flatMap(agentOf(run), (agent) =>
        connectAcpChild({
          launched,
          run,
          initializeTimeout: agent.initializeTimeout ?? options.initializeTimeout ?? "20 seconds",
          maxMessageBytes: options.maxMessageBytes ?? 16 * 1024 * 1024,
          mcpServers: agent.mcpServers ?? []
        })),
    newSession: openSession,
    prompt: promptTurn,
    cancel: cancelTurn,
    resume: {
      version: ACP_CONTINUATION_VERSION,
      schema: AcpContinuation,
      save: continuationOf,
      reopen: reopenSession,
      coldUnsupported: (saved) =>
        saved.loadSession
          ? undefined
          : "its ACP agent did not advertise loadSession, and its process is no longer kept warm (see keepAlive, [acp] keep_alive_seconds); start a new child"
    }
  }
}

/**
 * The `acp` backend: a continuable child in its own process, any ACP agent. Per run: spawn the
 * configured command through the `ProcessLauncher` (scrubbed environment plus the variables
 * passed explicitly, own process group, killed with the parent), `initialize` (the readiness
 * signal, bounded), `session/new` in the parent's cwd with the agent's MCP servers,
 * `session/prompt` with the task. Streamed text becomes the result; text, tool calls (merged
 * from every update), usage (from wherever the agent reports it) and permission requests with
 * their answers go to the child's transcript. Permission requests are decided by the calling
 * fiber's `Permissions` (see the README's "Permissions": the call's `kind` and `rawInput` become
 * `Bash(<command>)`, `Edit(<path>)`, …). Interruption (cancel, timeout) sends `session/cancel`, waits a short
 * grace, then the process tree is stopped. The result is returned as soon as the turn ends: a
 * finished child stays warm for `keepAlive` (a message continues the same session on the same
 * process), else it is closed in the background; later, a message reloads its session on a
 * new process (`session/load`) if its agent can. Every fault (spawn, silence, garbage, early
 * exit) ends as `failed` with notes. It is a record of hooks over the shared out-of-process
 * driver, which owns the process, the transcript, `meta.json` and the cleanup.
 */
export const make = (options: AcpProviderOptions): Effect.Effect<Vocabulary.SubagentProvider, never, ProcessLauncher.ProcessLauncher> =>
  OutOfProcessDriver.makeOutOfProcessProvider(acpChildBackend(options))

/** The provider with the `acp:<name>` type of each of its agents, as a harness registers it. */
export const makeAcpBackend = (options: AcpProviderOptions): Effect.Effect<Vocabulary.SubagentBackend, never, ProcessLauncher.ProcessLauncher> =>
  Effect.map(make(options), (provider) => ({ provider, types: acpAgentTypes(options.agents) }))
