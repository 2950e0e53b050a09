import type { AgentCatalog, AgentHost } from "@dsh/agent"
import type { AgentDefinitionError } from "@dsh/agent-files"
import type { Usage } from "@dsh/core"
import type { ModelRegistry } from "@dsh/llm"
import type { SubagentTree, Vocabulary } from "@dsh/subagent"
import type { Hooks, Tool } from "@dsh/tools"
import type { Effect } from "effect"
import type { AgentModelProfile } from "./ModelsConfig.ts"
import type { CatalogRequest } from "./CatalogRequest.ts"
import type { PermissionsSource } from "./SessionPermissions.ts"


/** A provider alone (its agent types come from the catalog), or a backend with types of its own. */
export type BackendInput = Vocabulary.SubagentProvider | Vocabulary.SubagentBackend

/** A value, or an effect that builds it (e.g. with the `ProcessLauncher` of the layer's context). */
export type Built<A, E, R> = A | Effect.Effect<A, E, R>

/**
 * A harness, described: which agents exist, which backends and tools every agent context has,
 * and the defaults of new sessions. `Harness.layer(options)` turns it into the `AgentHost`.
 */
export interface HarnessOptions<E = never, R = never> {
  /** The agents of a session: its main agent and the definitions children may run as. */
  readonly agents: (request: CatalogRequest) => Effect.Effect<AgentCatalog.AgentCatalog, AgentHost.HostError | AgentDefinitionError.AgentDefinitionError>
  /** Backends every agent context has. Catalog delegates run on `delegatesRunOn`. */
  readonly backends: Built<ReadonlyArray<BackendInput>, E, R>
  /** Tools every agent context has before its agent's policy narrows them (e.g. the built-ins). */
  readonly tools?: Built<ReadonlyArray<Tool.AnyTool>, E, R> | undefined
  /** The model spec of new sessions that name none. Default `scripted`. */
  readonly model?: string | undefined
  /** How model specs are resolved (credentials, endpoints, the directory of script files). */
  readonly modelConfig?: ModelRegistry.ModelConfig | undefined
  /** The provider the catalog's delegate definitions run on. Default `spawn`. */
  readonly delegatesRunOn?: string | undefined
  /** `send_message`/`list_agents`/`wait` for agents that may delegate. Default true. */
  readonly controlTools?: boolean | undefined
  /** `create_subagent`/`update_subagent`/`delete_subagent` for agents that may delegate. Default true. */
  readonly createTools?: boolean | undefined
  /**
   * The permission rules every agent of a session's tree is decided by (one `Permissions` per
   * session: answers remembered "for this session" stay with it). Questions go to the `Asker`
   * of the calling fiber (provide one around `prompt`). Absent: the caller's `Permissions`
   * applies (by default, everything is allowed).
   */
  readonly permissions?: PermissionsSource | undefined
  /**
   * Per-million-token prices by model spec (`provider:model`, as usage events name models):
   * results, descriptors, announcements and prompt answers then carry a cost in US dollars.
   */
  readonly pricing?: Usage.PriceLookup | undefined
  /**
   * The model children run on unless their call or agent type names one (`[subagents] model`:
   * typically a cheaper one than the main agent's); default, or `inherit`: their parent's.
   */
  readonly subagentModel?: string | undefined
  /**
   * Agent types' own model and credentials (`[agents.<name>]`): an agent of that type runs on its
   * `model` (over its file's), with its key and endpoint; unset parts come from `modelConfig`.
   */
  readonly agentModels?: Readonly<Record<string, AgentModelProfile>> | undefined
  /**
   * Children of a session are admitted by several processes (the owner and cluster runners):
   * handles and the child cap are then kept in the session's state. Default false.
   */
  readonly sharedAdmission?: boolean | undefined
  /**
   * Lifecycle hooks (Claude Code's events) as plain Effect callbacks, for every agent of every
   * session's tree: `PreToolUse` may block a call or settle its permission question, `Stop` may
   * send the main agent back to work. Command hooks (`commandHook` of `@dsh/tools-builtin`) are
   * registrations like any other.
   */
  readonly hooks?: ReadonlyArray<Hooks.HookRegistration> | ((request: CatalogRequest) => Effect.Effect<ReadonlyArray<Hooks.HookRegistration>, AgentHost.HostError>) | undefined
  /** Turns an agent definition's `hooks` frontmatter into registrations for that agent's runs; without it they are ignored. */
  readonly agentHooks?: ((agent: string, hooks: Readonly<Record<string, unknown>>) => ReadonlyArray<Hooks.HookRegistration>) | undefined
  /**
   * Every background child's announcement, by the handle of the agent that requested it
   * (`main` or a child), as it is queued for that agent: route each requester's announcements
   * to its own channel (a chat thread, a UI pane). The agent still reads it before its next
   * model call; `announcement.sessionId` names the session.
   */
  readonly onAnnouncement?: SubagentTree.AnnouncementListener | undefined
}
