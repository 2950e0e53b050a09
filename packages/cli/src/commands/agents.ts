import { Discovery, TrustStore } from "@dsh/agent-files"
import { RunOutput } from "@dsh/harness"
import { DshFlags, DshListing } from "@dsh/kit/dsh"
import { Effect } from "effect"
import { resolve } from "node:path"
import { parseFlags } from "../Args.ts"
import { UsageError } from "../CliError.ts"
import type { CliContext } from "../Context.ts"
import { loadCheckedConfig } from "../Host.ts"
import { cliInstall } from "../Install.ts"

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
    yield* DshFlags.directory(cwd)
    if (sub !== "list") {
      // A recorded decision: project agent files that override built-ins apply from now on (or no longer).
      const root = yield* Discovery.findProjectRoot(cwd)
      const store = TrustStore.makeFileTrustStore(ctx.home)
      yield* sub === "trust" ? store.trust(root) : store.untrust(root)
      return yield* RunOutput.writeLine(ctx.stdout, `${sub === "trust" ? "trusted" : "no longer trusted"}: ${root}`)
    }
    const agentFile = yield* DshFlags.onlyOnce(values["agent-file"], "--agent-file")
    const { config } = yield* loadCheckedConfig(ctx)
    const doc = yield* DshListing.listing(ctx, config, cliInstall(), {
      cwd,
      agentFile: agentFile === undefined ? undefined : resolve(ctx.cwd, agentFile),
      trustProject: values["trust-project"],
      plugins: (values["plugin-dir"] ?? []).map((d) => resolve(ctx.cwd, d))
    })
    if (values.json === true) return yield* RunOutput.writeLine(ctx.stdout, JSON.stringify(doc))
    for (const line of DshListing.lines(doc)) yield* RunOutput.writeLine(ctx.stdout, line)
  })
