import type { AgentHost } from "@dsh/agent"
import type { AgentDefinitionError } from "@dsh/agent-files"
import type { Registry } from "@dsh/core"
import type { DshA2a, DshFlags, DshRun, DshStore } from "@dsh/kit/dsh"
import type { HarnessConfig } from "@dsh/harness"
import type { LlmError } from "@dsh/llm"
import type { AcpAgentConfig } from "@dsh/subagent-acp"
import type { SessionError } from "@dsh/session"
import { Effect, Schema } from "effect"

/** Bad usage or bad input: one line on stderr, exit code 2, nothing written. */
export class UsageError extends Schema.TaggedError<UsageError>()("UsageError", {
  message: Schema.String
}) {}

/** A run that started and failed: exit code 1. */
export class RunFailed extends Schema.TaggedError<RunFailed>()("RunFailed", {
  message: Schema.String
}) {}

/** How the process ends: the exit code and the one line for stderr. */
export class CliExit extends Schema.TaggedError<CliExit>()("CliExit", {
  code: Schema.Literals([1, 2]),
  line: Schema.String
}) {}

/** Everything a command may fail with. */
export type CliFailure = UsageError | RunFailed | DshRun.RunFailed | DshStore.DshStoreError | DshA2a.DshA2aError | DshFlags.DshFlagError | HarnessConfig.ConfigError | AcpAgentConfig.AcpConfigError | AgentHost.HostError | SessionError.SessionError | AgentDefinitionError.AgentDefinitionError | LlmError.LlmError | Registry.RegistryError

const exit = (code: 1 | 2, message: string) => Effect.fail(new CliExit({ code, line: message.split("\n")[0] ?? message }))

/**
 * The CLI contract's exit codes: 2 for bad usage or input (the caller's to fix), 1 for a run
 * that failed. Exhaustive over the command errors: a new error type does not compile until
 * it is mapped here.
 */
export const toCliExit = <A, R>(effect: Effect.Effect<A, CliFailure, R>): Effect.Effect<A, CliExit, R> =>
  effect.pipe(Effect.catchTags({
    UsageError: (e) => exit(2, e.message),
    RunFailed: (e) => exit(1, e.message),
    DshStoreError: (e) => exit(2, e.message),
    DshA2aError: (e) => exit(2, e.message),
    DshFlagError: (e) => exit(2, e.message),
    ConfigError: (e) => exit(2, e.message),
    AcpConfigError: (e) => exit(2, e.message),
    HostError: (e) => exit(e.reason === "Failed" ? 1 : 2, e.message),
    SessionError: (e) => exit(e.reason === "Corrupt" || e.reason === "StateMissing" || e.reason === "Io" ? 1 : 2, e.message),
    AgentDefinitionError: (e) => exit(e.reason === "Builtin" || e.reason === "Io" ? 1 : 2, e.message),
    LlmError: (e) => exit(e.reason === "Configuration" ? 2 : 1, e.message),
    RegistryError: (e) => exit(2, e.message)
  }))
