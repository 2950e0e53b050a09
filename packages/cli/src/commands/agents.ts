import { findProjectRoot, makeFileTrustStore, resolveAgents } from "@dsh/agent-files"
import { agentListing, agentSearch, writeLine } from "@dsh/harness"
import { ModelRegistry } from "@dsh/llm"
import { a2aAgentStatuses, type A2aAgentStatus, configuredA2aAgents } from "@dsh/subagent-a2a"
import { acpAgentEntries } from "@dsh/subagent-acp"
import { BUILTIN_TOOL_NAMES } from "@dsh/tools-builtin"
import { Effect } from "effect"
import { resolve } from "node:path"
import { onlyOnce, parseFlags } from "../Args.ts"
import { UsageError } from "../CliError.ts"
import type { CliContext } from "../Context.ts"
import { checkDirectory } from "../Directories.ts"
import { agentFiles, dshBackends } from "../DshHarness.ts"
import { loadCheckedConfig } from "../Host.ts"
import { modelRegistryLayer } from "../Runtime.ts"

const FLAGS = {
  json: { type: "boolean" },
  cwd: { type: "string" },
  "agent-file": { type: "string", multiple: true },
  "trust-project": { type: "boolean" },
  "plugin-dir": { type: "string", multiple: true }
} as const

/**
 * `dsh agents list [--json]`: every resolved agent, every skipped file with its reason, every
 * shadowed file with what shadows it, warnings (each profile's policy and model warnings too),
 * and the `[acp.agents.*]` of config.toml with their status (`ok`, or `invalid` with the reason).
 * `dsh agents trust|untrust`: records whether this project's agent files may override built-ins.
 */
export const agentsCommand = (args: ReadonlyArray<string>, ctx: CliContext) =>
  Effect.gen(function*() {
    const { values, positionals } = yield* parseFlags(args, FLAGS, "agents")
    const sub = positionals[0] ?? "list"
    if (!["list", "trust", "untrust"].includes(sub) || positionals.length > 1) {
      return yield* new UsageError({ message: `agents: unknown subcommand "${positionals.join(" ")}" (list, trust, untrust)` })
    }
    const cwd = resolve(ctx.cwd, values.cwd ?? ".")
    yield* checkDirectory(cwd)
    if (sub !== "list") {
      // A recorded decision: project agent files that override built-ins apply from now on (or no longer).
      const root = yield* findProjectRoot(cwd)
      const store = makeFileTrustStore(ctx.home)
      yield* sub === "trust" ? store.trust(root) : store.untrust(root)
      return yield* writeLine(ctx.stdout, `${sub === "trust" ? "trusted" : "no longer trusted"}: ${root}`)
    }
    const agentFile = yield* onlyOnce(values["agent-file"], "--agent-file")
    const { config } = yield* loadCheckedConfig(ctx)
    const resolved = yield* resolveAgents(agentSearch({ ...agentFiles(ctx, config), remoteAgents: "a2a" }, {
      cwd,
      agentFile: agentFile === undefined ? undefined : resolve(ctx.cwd, agentFile),
      trustProject: values["trust-project"],
      plugins: (values["plugin-dir"] ?? []).map((d) => resolve(ctx.cwd, d))
    }))
    const entries = acpAgentEntries(config.raw)
    const acpAgents = entries.map((e) =>
      e.status === "ok" ? { name: e.name, command: e.command, status: e.status } : { name: e.name, command: e.command, status: e.status, reason: `${e.key} ${e.reason}` }
    )
    // Each profile checked as `dsh run` would apply it: against its tools, types and models.
    const usable = entries.flatMap((e) => (e.status === "ok" ? [e.agent] : []))
    const remoteFiles = resolved.remoteAgents ?? []
    const backends = yield* dshBackends(ctx, config, usable, undefined, undefined, Effect.succeed(remoteFiles))
    const backendTypes = backends.flatMap((b) => ("types" in b ? b.types.map((t) => t.name) : []))
    // `[a2a.agents.*]` (config faults, or what reading each card said), then the remote agent files'.
    const a2aAgents = a2aAgentStatuses(config.raw, remoteFiles, backends.flatMap((b) => ("statuses" in b ? (b.statuses as ReadonlyArray<A2aAgentStatus>) : [])))
    const fromFiles = configuredA2aAgents(config.raw, remoteFiles)
    const listing = yield* Effect.gen(function*() {
      const registry = yield* ModelRegistry
      return yield* agentListing(resolved, { tools: BUILTIN_TOOL_NAMES, backendTypes, canonicalModel: registry.canonical })
    }).pipe(Effect.provide(modelRegistryLayer(config, ctx)))
    const doc = { ...listing, shadowed: [...listing.shadowed, ...fromFiles.shadowed], acpAgents, a2aAgents }
    if (values.json === true) return yield* writeLine(ctx.stdout, JSON.stringify(doc))
    for (const a of doc.agents) {
      yield* writeLine(ctx.stdout, `${a.name.padEnd(20)} ${a.scope.padEnd(8)} ${a.description.split("\n")[0]?.slice(0, 80) ?? ""}`)
      if (a.disallowedTools !== null && a.disallowedTools.length > 0) {
        yield* writeLine(ctx.stdout, `${"".padEnd(29)} disallowedTools: ${a.disallowedTools.join(", ")} (for it and every agent it delegates to)`)
      }
    }
    for (const s of doc.skipped) yield* writeLine(ctx.stdout, `skipped ${s.path}: ${s.reason}`)
    for (const s of doc.shadowed) yield* writeLine(ctx.stdout, `shadowed ${s.path}: "${s.name}" is ${s.by}`)
    for (const w of doc.warnings) yield* writeLine(ctx.stdout, `warning: ${w}`)
    if (acpAgents.length > 0) yield* writeLine(ctx.stdout, "ACP agents (config.toml [acp.agents.*]):")
    for (const a of acpAgents) {
      yield* writeLine(ctx.stdout, `acp:${a.name.padEnd(16)} ${a.status.padEnd(8)} ${a.command}${"reason" in a ? `: ${a.reason}` : ""}`)
    }
    if (a2aAgents.length > 0) yield* writeLine(ctx.stdout, "A2A agents (config.toml [a2a.agents.*], remote agent files):")
    for (const a of a2aAgents) {
      yield* writeLine(ctx.stdout, `a2a:${a.name.padEnd(16)} ${a.status.padEnd(8)} ${a.url}${a.source === undefined ? "" : ` (${a.source})`}${a.reason === undefined ? "" : `: ${a.reason}`}`)
    }
  })
