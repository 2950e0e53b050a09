import { agentsListJson, findProjectRoot, makeFileTrustStore, resolveAgents } from "@dsh/agent"
import { acpAgentEntries } from "@dsh/subagent-acp"
import { Effect } from "effect"
import { resolve } from "node:path"
import { parseFlags } from "../Args.ts"
import { UsageError } from "../CliError.ts"
import { loadConfig } from "../Config.ts"
import type { CliContext } from "../Context.ts"
import { agentSearch } from "@dsh/harness"
import { agentFiles } from "../DshHarness.ts"
import { writeLine } from "../Output.ts"
import { checkDirectory } from "../Directories.ts"

const FLAGS = {
  json: { type: "boolean" },
  cwd: { type: "string" },
  "agent-file": { type: "string" },
  "trust-project": { type: "boolean" }
} as const

/**
 * `dsh agents list [--json]`: every resolved agent, every skipped file with its reason, warnings,
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
    const config = yield* loadConfig(ctx.home)
    const resolved = yield* resolveAgents(agentSearch(agentFiles(ctx, config), {
      cwd,
      agentFile: values["agent-file"] === undefined ? undefined : resolve(ctx.cwd, values["agent-file"]),
      trustProject: values["trust-project"]
    }))
    const acpAgents = acpAgentEntries(config.raw).map((e) =>
      e.status === "ok" ? { name: e.name, command: e.command, status: e.status } : { name: e.name, command: e.command, status: e.status, reason: `${e.key} ${e.reason}` }
    )
    const doc = { ...agentsListJson(resolved), acpAgents }
    if (values.json === true) return yield* writeLine(ctx.stdout, JSON.stringify(doc))
    for (const a of doc.agents) {
      yield* writeLine(ctx.stdout, `${a.name.padEnd(20)} ${a.scope.padEnd(8)} ${a.description.split("\n")[0]?.slice(0, 80) ?? ""}`)
    }
    for (const s of doc.skipped) yield* writeLine(ctx.stdout, `skipped ${s.path}: ${s.reason}`)
    for (const w of doc.warnings) yield* writeLine(ctx.stdout, `warning: ${w}`)
    if (acpAgents.length > 0) yield* writeLine(ctx.stdout, "ACP agents (config.toml [acp.agents.*]):")
    for (const a of acpAgents) {
      yield* writeLine(ctx.stdout, `acp:${a.name.padEnd(16)} ${a.status.padEnd(8)} ${a.command}${"reason" in a ? `: ${a.reason}` : ""}`)
    }
  })
