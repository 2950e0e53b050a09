import {
  type AgentDefinition,
  collectTemplateVars,
  DEFAULT_AGENT_NAME,
  findAgent,
  isDelegable,
  renderAgentPrompt,
  resolveAgents,
  type ResolvedAgents,
  type TemplateVars
} from "@dsh/agent"
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { homedir } from "node:os"
import { fileURLToPath } from "node:url"
import type { DshConfig } from "./Config.ts"
import type { CliContext } from "./Context.ts"

export interface ResolvedMainAgent {
  readonly definition: AgentDefinition
  readonly systemPrompt: string
  /** Every other resolved agent a child may run as. */
  readonly delegationTypes: ReadonlyArray<AgentDefinition>
  /** Renders any agent's prompt with the same variables (children share the parent's context). */
  readonly renderPrompt: (definition: AgentDefinition, cwd: string) => string
  readonly resolved: ResolvedAgents
}

/**
 * The built-in agent files shipped inside the CLI's own bundle (`dist/agents`, copied from
 * `@dsh/agent` at build time), so an installed CLI needs no other package. Run from source,
 * there is none and `@dsh/agent`'s own directory is used.
 */
const bundledAgentsDir = (): string | undefined => {
  const dir = fileURLToPath(new URL("./agents", import.meta.url))
  return existsSync(dir) ? dir : undefined
}

/** Resolves the agent set of a run's cwd: files, scopes, trust and built-ins. */
export const resolveAgentSet = (opts: {
  readonly ctx: CliContext
  readonly config: DshConfig
  readonly cwd: string
  readonly agentFile?: string | undefined
  readonly trustProject?: boolean | undefined
}) =>
  resolveAgents({
    cwd: opts.cwd,
    dshHome: opts.ctx.home,
    userHome: opts.ctx.env.HOME ?? homedir(),
    agentFile: opts.agentFile,
    extraAgentDirs: opts.config.extraAgentDirs,
    trustProject: opts.trustProject,
    builtinAgentsDir: bundledAgentsDir()
  })

/**
 * Chooses the main agent of a run: `--agent NAME`, `--agent-file PATH`, the agent bound to
 * the session being continued, or the default main agent.
 */
export const resolveMainAgent = (opts: {
  readonly ctx: CliContext
  readonly config: DshConfig
  readonly cwd: string
  readonly agent?: string | undefined
  readonly agentFile?: string | undefined
  readonly bound?: string | undefined
  readonly trustProject?: boolean | undefined
}) =>
  Effect.gen(function*() {
    const resolved = yield* resolveAgentSet(opts)
    const explicit = opts.agentFile === undefined ? undefined : resolved.agents.find((a) => a.scope === "explicit")
    const definition = explicit ?? (yield* findAgent(resolved, opts.bound ?? opts.agent ?? DEFAULT_AGENT_NAME))
    const vars: TemplateVars = yield* collectTemplateVars({
      cwd: opts.cwd,
      now: new Date(),
      env: opts.ctx.env,
      projectRoot: resolved.projectRoot,
      dshHome: opts.ctx.home,
      userHome: opts.ctx.env.HOME ?? homedir()
    })
    const renderPrompt = (def: AgentDefinition, cwd: string) =>
      renderAgentPrompt(def, resolved.basePrompts, cwd === opts.cwd ? vars : { ...vars, cwd })
    return {
      definition,
      systemPrompt: renderPrompt(definition, opts.cwd),
      delegationTypes: resolved.agents.filter((a) => a.name !== definition.name && isDelegable(a)),
      renderPrompt,
      resolved
    } satisfies ResolvedMainAgent
  })
