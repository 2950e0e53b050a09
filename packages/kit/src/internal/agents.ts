import type { AgentDefinition } from "@dsh/agent"
import { Discovery } from "@dsh/agent-files"
import { Effect } from "effect"
import * as Path from "node:path"
import type { KitAgent, KitAgents } from "../Options.ts"
import { SubagentsError } from "../SubagentsError.ts"

const NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/

/**
 * `report` is how a child hands a (typed) result back, not a capability: an agent whose `tools`
 * list omits it keeps it, so `delegate({ schema })` works for every agent.
 */
const withReport = (tools: ReadonlyArray<string> | undefined) => (tools === undefined || tools.includes("report") ? tools : [...tools, "report"])

const fromRecord = (agents: Readonly<Record<string, KitAgent>>) =>
  Effect.forEach(Object.entries(agents), ([name, a]) =>
    NAME.test(name)
      ? Effect.succeed<AgentDefinition.AgentDefinition>({
        name,
        description: a.description,
        systemPrompt: a.instructions,
        tools: withReport(a.tools),
        model: a.model,
        // A kit's agent delegates only where it says it may.
        subagents: a.subagents ?? [],
        override: false,
        scope: "runtime",
        source: "kit"
      })
      : Effect.fail(new SubagentsError("InvalidOptions", `agent name "${name}" must be kebab-case (a-z, 0-9, -)`)))

/** The agent files of a directory the caller named: every file must load (a typo should not vanish). */
const fromDir = (dir: string, cwd: string) =>
  Effect.gen(function*() {
    const scan = yield* Discovery.scanAgentDir(Path.resolve(cwd, dir), "explicit")
    const loaded: Array<AgentDefinition.AgentDefinition> = []
    for (const r of [...scan.results, ...scan.extra]) {
      if (r._tag === "Invalid") return yield* Effect.fail(new SubagentsError("InvalidOptions", `${r.path}: ${r.reason}`))
      loaded.push({ ...r.definition, tools: withReport(r.definition.tools) })
    }
    if (loaded.length === 0) return yield* Effect.fail(new SubagentsError("InvalidOptions", `${dir}: no agent files (*.md) there`))
    return loaded
  })

/**
 * The definitions `agents` names: records in code, and directories of Markdown agent files
 * (Claude Code, OpenCode, Gemini CLI formats; relative to `cwd`). A later entry's agent replaces
 * an earlier one of the same name.
 */
export const kitAgents = (agents: KitAgents, cwd: string): Effect.Effect<ReadonlyArray<AgentDefinition.AgentDefinition>, SubagentsError> =>
  Effect.gen(function*() {
    const entries = Array.isArray(agents) ? agents : [agents as Readonly<Record<string, KitAgent>>]
    const byName = new Map<string, AgentDefinition.AgentDefinition>()
    for (const entry of entries) {
      const defs = typeof entry === "string" ? yield* fromDir(entry, cwd) : yield* fromRecord(entry)
      for (const d of defs) byName.set(d.name, d)
    }
    return [...byName.values()]
  })
