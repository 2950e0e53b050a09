import { AgentHost } from "@dsh/agent"
import type { AgentDefinitionError } from "@dsh/agent-files"
import type { Registry } from "@dsh/core"
import type { LlmError } from "@dsh/llm"
import type { SessionError } from "@dsh/session"
import type { Specification, SubagentError } from "@dsh/subagent"
import { Effect } from "effect"

/** Everything a host operation can fail with before it is a `HostError`. */
export type HostFailure = AgentHost.HostError | SessionError.SessionError | LlmError.LlmError | Registry.RegistryError | Specification.ProviderVersionError | AgentDefinitionError.AgentDefinitionError | SubagentError.SubagentError

const host = (reason: AgentHost.HostError["reason"], message: string) => Effect.fail(new AgentHost.HostError({ reason, message: message.split("\n")[0] ?? message }))

/**
 * Maps every failure of the packages a host composes to a `HostError`: `NotFound` and
 * `InvalidInput` are the caller's to fix (a CLI's exit 2, a protocol's invalid params),
 * `Failed` is a run that went wrong (exit 1). Exhaustive over the tags, so a new error type
 * is a compile error here, not a silent "failed".
 */
export const toHostError = <A, R>(effect: Effect.Effect<A, HostFailure, R>): Effect.Effect<A, AgentHost.HostError, R> =>
  effect.pipe(Effect.catchTags({
    HostError: (e) => Effect.fail(e),
    SessionError: (e) =>
      host(e.reason === "NotFound" ? "NotFound" : e.reason === "Owned" ? "Busy" : e.reason === "InvalidId" || e.reason === "Exists" ? "InvalidInput" : "Failed", e.message),
    LlmError: (e) => host(e.reason === "Configuration" ? "InvalidInput" : "Failed", e.message),
    RegistryError: (e) => host("InvalidInput", e.message),
    ProviderVersionError: (e) => host("InvalidInput", e.message),
    AgentDefinitionError: (e) => host(e.reason === "Builtin" || e.reason === "Io" ? "Failed" : "InvalidInput", e.message),
    SubagentError: (e) =>
      host(
        e.reason === "UnknownHandle" ? "NotFound"
          : e.reason === "NotOwner" || e.reason === "InvalidRequest" ? "InvalidInput"
          : e.reason === "Unsupported" ? "Unsupported"
          : "Failed",
        e.message
      )
  }))
