import { createRequire } from "node:module"
import * as Path from "node:path"
import { Effect } from "effect"
import type { AgentDefinition } from "@dsh/agent"
import { AgentDefinitionError } from "./AgentDefinitionError.ts"
import { scanAgentDir } from "./Discovery.ts"

/**
 * The built-in agents, shipped as ordinary agent files in `@dsh/agent-files/agents/`. They are found
 * through the package's own `package.json`, not relative to this module, because the CLI is
 * bundled into another package's `dist/` where module-relative paths no longer point here.
 */

/** The default main agent. A file named `agent.md` with `override: true` replaces it. */
export const DEFAULT_AGENT_NAME = "agent"

/** The built-in agents meant for delegation (`coder` is the default subagent type). */
export const BUILTIN_SUBAGENT_NAMES: ReadonlyArray<string> = ["coder", "explore", "plan"]

/** The default subagent type when a delegation names none. */
export const DEFAULT_SUBAGENT_NAME = "coder"

/** The directory holding the built-in agent files of the installed `@dsh/agent-files`. */
export const builtinAgentsDir: Effect.Effect<string, AgentDefinitionError> = Effect.try({
  try: () => Path.join(Path.dirname(createRequire(import.meta.url).resolve("@dsh/agent-files/package.json")), "agents"),
  catch: (cause) =>
    new AgentDefinitionError({
      reason: "Builtin",
      detail: `cannot locate the @dsh/agent-files package for its built-in agents: ${String(cause)}`
    })
})

/**
 * Loads the built-in agents (scope `builtin`, source `builtin:<name>`). Any broken or missing
 * built-in file is an installation fault and fails with reason `Builtin`. `dir` replaces the
 * package directory (tests, or a harness shipping its own defaults).
 */
export const loadBuiltinAgents = (
  options: { readonly dir?: string | undefined } = {}
): Effect.Effect<ReadonlyArray<AgentDefinition.AgentDefinition>, AgentDefinitionError> =>
  Effect.gen(function*() {
    const dir = options.dir ?? (yield* builtinAgentsDir)
    const scan = yield* scanAgentDir(dir, "builtin")
    const agents: Array<AgentDefinition.AgentDefinition> = []
    for (const result of scan.results) {
      if (result._tag === "Invalid") {
        return yield* Effect.fail(
          new AgentDefinitionError({ reason: "Builtin", detail: `broken built-in agent: ${result.reason}`, path: result.path })
        )
      }
      agents.push({ ...result.definition, source: `builtin:${result.definition.name}` })
    }
    if (!agents.some((a) => a.name === DEFAULT_AGENT_NAME)) {
      return yield* Effect.fail(
        new AgentDefinitionError({ reason: "Builtin", detail: `no built-in "${DEFAULT_AGENT_NAME}" agent`, path: dir })
      )
    }
    return agents
  })
