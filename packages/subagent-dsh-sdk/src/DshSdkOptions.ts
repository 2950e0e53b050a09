import type { AgentDefinition } from "@dsh/agent"
import type { Limits, Vocabulary } from "@dsh/subagent"
import type { Sandbox } from "@dsh/subprocess"
import type { Duration } from "effect"

/** The provider's registry name. */
export const DSH_SDK_PROVIDER = "dsh-sdk"

/** The delegation type that runs a child in a separate dsh runtime with its default agent. */
export const DSH_SDK_TYPE = "sdk:dsh"

const DEFAULT_AGENT_SOURCE = "sdk:default"

export interface DshSdkProviderOptions {
  /** The provider's name. Default `dsh-sdk`. */
  readonly name?: string | undefined
  /** The server command: `dsh` (args `["sdk"]`), or `node` with the CLI's entry and `sdk`. */
  readonly command: string
  /** Default `["sdk"]`. */
  readonly args?: ReadonlyArray<string> | undefined
  /**
   * Variables for the child on top of the launcher's scrubbed environment. The environment is
   * scrubbed, so model credentials (`OPENAI_*`, `ANTHROPIC_*`) and `DSH_MODEL` must be passed
   * here (see `forwardedEnv`). `DSH_HOME` is always set to the child's own directory.
   */
  readonly env?: Readonly<Record<string, string>> | undefined
  /** How long a new child may take to answer `initialize`. Default 15 seconds. */
  readonly handshakeTimeout?: Duration.Input | undefined
  /** On stop: how long the child may take to confirm `session.cancel` before its process is closed. Default 2 seconds. */
  readonly cancelGrace?: Duration.Input | undefined
  /** After stdin closes, how long a child that answered its last prompt may take to exit before the signal ladder. Default 2 seconds. */
  readonly exitGrace?: Duration.Input | undefined
  /** SIGTERM → SIGKILL grace. Default: the launcher's. */
  readonly killGrace?: Duration.Input | undefined
  readonly maxFrameBytes?: number | undefined
  /**
   * Limits written to the child's `config.toml`: usually the nesting depth left below this
   * child, so a tree's depth limit holds across processes. Undefined leaves the child's defaults.
   */
  readonly childLimits?: ((context: Vocabulary.StartContext) => Limits.SubagentLimitsInput | undefined) | undefined
  /** `[sandbox]` written to the child's `config.toml`, so its Bash is confined as the parent's is. */
  readonly childSandbox?: Sandbox.SandboxSettings | undefined
  /** More TOML for the child's `config.toml`, e.g. the parent's `[providers.*]` so the child reaches the same models. */
  readonly childConfigToml?: string | undefined
}

/** Which agent a child session runs: the type's definition, or the child's default for `sdk:dsh`. */
export const childAgentOf = (type: Vocabulary.AgentType): string | undefined =>
  type.definition.source === DEFAULT_AGENT_SOURCE ? undefined : type.definition.name

/** The `sdk:dsh` delegation type: a dsh child with its own default agent, tools and subagents. */
export const dshSdkAgentType = (provider: string = DSH_SDK_PROVIDER): Vocabulary.AgentType => ({
  name: DSH_SDK_TYPE,
  provider,
  description: "a separate dsh agent in its own process, with its own session, tools and subagents; continuable",
  definition: {
    name: "sdk-dsh",
    description: "a separate dsh agent in its own process",
    whenToUse: "larger, independent tasks that deserve their own session and may delegate further",
    systemPrompt: "",
    override: false,
    mode: "subagent",
    scope: "runtime",
    source: DEFAULT_AGENT_SOURCE
  }
})

/** Agent definitions offered under a prefix (`sdk:coder`): the same agent, run in a dsh child. */
export const sdkAgentTypes = (definitions: ReadonlyArray<AgentDefinition.AgentDefinition>, provider: string = DSH_SDK_PROVIDER): ReadonlyArray<Vocabulary.AgentType> =>
  definitions.map((definition) => ({ name: `sdk:${definition.name}`, provider, description: definition.description, definition }))

const FORWARDED = /^(OPENAI_|ANTHROPIC_|OTEL_|DSH_OTEL_)|^DSH_MODEL$|^DSH_LOG_LEVEL$|^DSH_DEBUG$|^DSH_RESIDENT$/

/**
 * The variables a dsh child needs from its parent's environment: model endpoints and keys, the
 * default model, logging, and which resident dsh (if any) starts it.
 */
export const forwardedEnv = (env: Readonly<Record<string, string | undefined>>): Record<string, string> =>
  Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined && FORWARDED.test(e[0])))
