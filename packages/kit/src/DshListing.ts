import { type AgentDefinitionError, ResolveAgents } from "@dsh/agent-files"
import type { Registry } from "@dsh/core"
import { AgentListing, FileAgents, type HarnessConfig } from "@dsh/harness"
import { ModelRegistry } from "@dsh/llm"
import { A2aAgentListing, type A2aProvider } from "@dsh/subagent-a2a"
import { AcpAgentConfig } from "@dsh/subagent-acp"
import type { ProcessLauncher } from "@dsh/subprocess"
import { BuiltinTools } from "@dsh/tools-builtin"
import { Effect } from "effect"
import * as DshHarness from "./DshHarness.ts"
import * as DshModels from "./DshModels.ts"

/** An `[acp.agents.*]` entry of config.toml as listed: usable, or invalid with the reason. */
export interface AcpAgentLine {
  readonly name: string
  readonly command: string
  readonly status: "ok" | "invalid"
  readonly reason?: string | undefined
}

/** What `dsh agents list --json` prints: the resolved agents and files, and the configured remote agents. */
export interface DshAgentListing extends ResolveAgents.AgentsListJson {
  readonly acpAgents: ReadonlyArray<AcpAgentLine>
  readonly a2aAgents: ReadonlyArray<A2aProvider.A2aAgentStatus>
}

/**
 * Every agent a session in `request.cwd` would have, as dsh's harness resolves them: every
 * skipped file with its reason, every shadowed file with what shadows it, warnings (each
 * profile checked as a run applies it: against its tools, backend types and models), the
 * `[acp.agents.*]` of config.toml with their status, and the A2A agents with what reading each
 * card said. Nothing starts: backends are built, no child runs.
 */
export const listing = (
  place: DshModels.DshPlace,
  config: HarnessConfig.HarnessConfig,
  install: DshHarness.DshInstall,
  request: Parameters<typeof FileAgents.agentSearch>[1]
): Effect.Effect<DshAgentListing, AgentDefinitionError.AgentDefinitionError | Registry.RegistryError, ProcessLauncher.ProcessLauncher> =>
  Effect.gen(function*() {
    const resolved = yield* ResolveAgents.resolveAgents(FileAgents.agentSearch({ ...DshHarness.agentFiles(place, config, install), remoteAgents: "a2a" }, request))
    const entries = AcpAgentConfig.acpAgentEntries(config.raw)
    const acpAgents = entries.map((e): AcpAgentLine =>
      e.status === "ok" ? { name: e.name, command: e.command, status: e.status } : { name: e.name, command: e.command, status: e.status, reason: `${e.key} ${e.reason}` }
    )
    const usable = entries.flatMap((e) => (e.status === "ok" ? [e.agent] : []))
    const remoteFiles = resolved.remoteAgents ?? []
    const backends = yield* DshHarness.backends(place, config, usable, install, { remoteFiles: Effect.succeed(remoteFiles) })
    const backendTypes = backends.flatMap((b) => ("types" in b ? b.types.map((t) => t.name) : []))
    // `[a2a.agents.*]` (config faults, or what reading each card said), then the remote agent files'.
    const cards = backends.flatMap((b) => ("statuses" in b ? (b.statuses as ReadonlyArray<A2aProvider.A2aAgentStatus>) : []))
    const a2aAgents = A2aAgentListing.a2aAgentStatuses(config.raw, remoteFiles, cards)
    const fromFiles = A2aAgentListing.configuredA2aAgents(config.raw, remoteFiles)
    const doc = yield* Effect.gen(function*() {
      const registry = yield* ModelRegistry.ModelRegistry
      return yield* AgentListing.agentListing(resolved, { tools: BuiltinTools.BUILTIN_TOOL_NAMES, backendTypes, canonicalModel: registry.canonical })
    }).pipe(Effect.provide(DshModels.registryLayer(config, place)))
    return { ...doc, shadowed: [...doc.shadowed, ...fromFiles.shadowed], acpAgents, a2aAgents }
  })

/** The listing as `dsh agents list` prints it: one line per agent, file, warning and remote agent. */
export const lines = (doc: DshAgentListing): ReadonlyArray<string> => [
  ...doc.agents.flatMap((a) => [
    `${a.name.padEnd(20)} ${a.scope.padEnd(8)} ${a.description.split("\n")[0]?.slice(0, 80) ?? ""}`,
    ...(a.disallowedTools !== null && a.disallowedTools.length > 0
      ? [`${"".padEnd(29)} disallowedTools: ${a.disallowedTools.join(", ")} (for it and every agent it delegates to)`]
      : [])
  ]),
  ...doc.skipped.map((s) => `skipped ${s.path}: ${s.reason}`),
  ...doc.shadowed.map((s) => `shadowed ${s.path}: "${s.name}" is ${s.by}`),
  ...doc.warnings.map((w) => `warning: ${w}`),
  ...(doc.acpAgents.length > 0 ? ["ACP agents (config.toml [acp.agents.*]):"] : []),
  ...doc.acpAgents.map((a) => `acp:${a.name.padEnd(16)} ${a.status.padEnd(8)} ${a.command}${a.reason === undefined ? "" : `: ${a.reason}`}`),
  ...(doc.a2aAgents.length > 0 ? ["A2A agents (config.toml [a2a.agents.*], remote agent files):"] : []),
  ...doc.a2aAgents.map((a) => `a2a:${a.name.padEnd(16)} ${a.status.padEnd(8)} ${a.url}${a.source === undefined ? "" : ` (${a.source})`}${a.reason === undefined ? "" : `: ${a.reason}`}`)
]
