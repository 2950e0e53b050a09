import { agentsListJson } from "@dsh/agent"
import { Effect } from "effect"
import { resolve } from "node:path"
import { parseFlags } from "../Args.ts"
import { UsageError } from "../CliError.ts"
import { loadConfig } from "../Config.ts"
import type { CliContext } from "../Context.ts"
import { resolveAgentSet } from "../MainAgent.ts"
import { writeLine } from "../Output.ts"
import { checkDirectory } from "../Directories.ts"

const FLAGS = {
  json: { type: "boolean" },
  cwd: { type: "string" },
  "agent-file": { type: "string" },
  "trust-project": { type: "boolean" }
} as const

/** `dsh agents list [--json]`: every resolved agent, every skipped file with its reason, warnings. */
export const agentsCommand = (args: ReadonlyArray<string>, ctx: CliContext) =>
  Effect.gen(function*() {
    const { values, positionals } = yield* parseFlags(args, FLAGS, "agents")
    if ((positionals[0] ?? "list") !== "list" || positionals.length > 1) {
      return yield* new UsageError({ message: `agents: unknown subcommand "${positionals.join(" ")}" (try: dsh agents list)` })
    }
    const cwd = resolve(ctx.cwd, values.cwd ?? ".")
    yield* checkDirectory(cwd)
    const config = yield* loadConfig(ctx.home)
    const resolved = yield* resolveAgentSet({
      ctx,
      config,
      cwd,
      agentFile: values["agent-file"] === undefined ? undefined : resolve(ctx.cwd, values["agent-file"]),
      trustProject: values["trust-project"]
    })
    const doc = agentsListJson(resolved)
    if (values.json === true) return yield* writeLine(ctx.stdout, JSON.stringify(doc))
    for (const a of doc.agents) {
      yield* writeLine(ctx.stdout, `${a.name.padEnd(20)} ${a.scope.padEnd(8)} ${a.description.split("\n")[0]?.slice(0, 80) ?? ""}`)
    }
    for (const s of doc.skipped) yield* writeLine(ctx.stdout, `skipped ${s.path}: ${s.reason}`)
    for (const w of doc.warnings) yield* writeLine(ctx.stdout, `warning: ${w}`)
  })
