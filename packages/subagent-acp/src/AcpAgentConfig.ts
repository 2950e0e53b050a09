import type * as acp from "@agentclientprotocol/sdk/unstable"
import type { AgentDefinition } from "@dsh/agent"
import type { AgentType, StartContext } from "@dsh/subagent"
import { childModelSpec } from "@dsh/subagent-outofprocess"
import { Duration, Effect } from "effect"
import { mkdir, mkdtemp, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { isAbsolute, join } from "node:path"

/** The provider name every ACP agent type runs on. */
export const ACP_PROVIDER = "acp"

/** What a run adds to an agent's command line and environment (computed per child). */
export interface AcpLaunchAdditions {
  readonly args?: ReadonlyArray<string> | undefined
  readonly env?: Readonly<Record<string, string>> | undefined
}

/** One ACP agent a parent can delegate to, as `acp:<name>`. */
export interface AcpAgentConfig {
  /** `claude` becomes the agent type `acp:claude`. */
  readonly name: string
  readonly description: string
  readonly command: string
  readonly args?: ReadonlyArray<string> | undefined
  /**
   * Parent environment variables passed through by name (a trailing `*` matches a prefix).
   * Nothing else passes except the launcher's scrubbed allow-list (PATH, HOME, …).
   */
  readonly passEnv?: ReadonlyArray<string> | undefined
  /** Variables set explicitly. */
  readonly env?: Readonly<Record<string, string>> | undefined
  /** `parent` (default): the parent's working directory; otherwise a directory (relative to the parent's). */
  readonly cwd?: string | undefined
  /** How long the agent may take to answer `initialize` (default: the provider's). */
  readonly initializeTimeout?: Duration.Input | undefined
  /** MCP servers passed to the agent in `session/new` (and `session/load`). */
  readonly mcpServers?: ReadonlyArray<acp.McpServer> | undefined
  /** Per-run additions (e.g. the parent's model spec and a state directory for `acp:dsh`). */
  readonly prepare?: ((context: StartContext) => Effect.Effect<AcpLaunchAdditions, string>) | undefined
}

/** The delegation type name of an ACP agent. */
export const acpTypeName = (name: string): string => `acp:${name}`

/** The agent types (`acp:<name>`, provider `acp`) that the `subagent` tool offers for `agents`. */
export const acpAgentTypes = (agents: ReadonlyArray<AcpAgentConfig>): ReadonlyArray<AgentType> =>
  agents.map((agent) => {
    const name = acpTypeName(agent.name)
    const definition: AgentDefinition = {
      name,
      description: agent.description,
      whenToUse: "an out-of-process agent spoken to over ACP; give it a complete, self-contained task",
      systemPrompt: "",
      override: false,
      mode: "subagent",
      scope: "runtime",
      source: `config:acp.agents.${agent.name}`
    }
    return { name, description: agent.description, provider: ACP_PROVIDER, definition }
  })

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)
const strings = (v: unknown): v is ReadonlyArray<string> => Array.isArray(v) && v.every((x) => typeof x === "string")

/**
 * Reads `[acp.agents.<name>]` tables from a parsed config.toml:
 * `command` (required), `args`, `env` (names to pass through, or a table of explicit
 * values), `description`, `cwd` (`"parent"` or a directory), `initialize_timeout_seconds`.
 * Invalid entries are skipped with a warning; they never break the other agents.
 */
export const acpAgentsFromConfig = (raw: unknown): { readonly agents: ReadonlyArray<AcpAgentConfig>; readonly warnings: ReadonlyArray<string> } => {
  const agents: Array<AcpAgentConfig> = []
  const warnings: Array<string> = []
  const table = isRecord(raw) && isRecord(raw.acp) && isRecord(raw.acp.agents) ? raw.acp.agents : {}
  for (const [name, entry] of Object.entries(table)) {
    const where = `[acp.agents.${name}]`
    if (!/^[a-z0-9][a-z0-9_-]*$/.test(name)) {
      warnings.push(`${where}: the name must be lower-case letters, digits, - or _`)
      continue
    }
    if (!isRecord(entry) || typeof entry.command !== "string" || entry.command === "") {
      warnings.push(`${where}: "command" is required`)
      continue
    }
    if (entry.args !== undefined && !strings(entry.args)) {
      warnings.push(`${where}: "args" must be a list of strings`)
      continue
    }
    const env = entry.env
    const passEnv = strings(env) ? env : undefined
    const explicit = isRecord(env) && Object.values(env).every((v) => typeof v === "string") ? env as Record<string, string> : undefined
    if (env !== undefined && passEnv === undefined && explicit === undefined) {
      warnings.push(`${where}: "env" must be a list of variable names or a table of values`)
      continue
    }
    const timeout = entry.initialize_timeout_seconds
    agents.push({
      name,
      description: typeof entry.description === "string" ? entry.description : `the ACP agent "${entry.command}"`,
      command: entry.command,
      args: entry.args as ReadonlyArray<string> | undefined,
      passEnv,
      env: explicit,
      cwd: typeof entry.cwd === "string" ? entry.cwd : undefined,
      initializeTimeout: typeof timeout === "number" && timeout > 0 ? Duration.seconds(timeout) : undefined
    })
  }
  return { agents, warnings }
}

/** Credentials and settings a dsh child needs to reach the same models as its parent. */
export const DSH_CHILD_ENV: ReadonlyArray<string> = ["OPENAI_BASE_URL", "OPENAI_API_KEY", "ANTHROPIC_*", "DSH_LOG_LEVEL"]

/** A directory for the child's own `$DSH_HOME`: beside its transcript when the store is on disk. */
const childHome = (context: StartContext): Effect.Effect<string, string> => {
  const location = context.store?.location
  return Effect.tryPromise({
    try: async () => {
      if (location !== undefined && isAbsolute(location)) {
        const dir = join(location, "dsh-home")
        await mkdir(dir, { recursive: true })
        return dir
      }
      return await mkdtemp(join(tmpdir(), `dsh-acp-${context.handle}-`))
    },
    catch: (e) => `cannot create the child's state directory: ${e instanceof Error ? e.message : String(e)}`
  })
}

/**
 * `acp:dsh`: this same CLI served over ACP (`<command> <args…> acp --model <spec>`), with the
 * parent's model (or the request's override), its own `$DSH_HOME` under the child's store,
 * and the model credentials passed explicitly. The nesting depth left is written to the
 * child's config, so delegation cannot recurse without bound across processes.
 */
export const dshAcpAgent = (options: {
  /** Usually `process.execPath`. */
  readonly command: string
  /** What precedes `acp`: Node flags and the CLI's main script. */
  readonly args: ReadonlyArray<string>
  /** The session tree's depth limit (default 1); a function when the tree is built later. */
  readonly maxDepth?: number | (() => number) | undefined
  readonly passEnv?: ReadonlyArray<string> | undefined
}): AcpAgentConfig => ({
  name: "dsh",
  description: "a dsh agent in its own process (over ACP): isolated memory and crash boundary, same tools and model",
  command: options.command,
  args: [...options.args, "acp"],
  passEnv: options.passEnv ?? DSH_CHILD_ENV,
  cwd: "parent",
  prepare: (context) =>
    Effect.gen(function*() {
      const model = childModelSpec(context)
      const home = yield* childHome(context)
      const maxDepth = typeof options.maxDepth === "function" ? options.maxDepth() : options.maxDepth ?? 1
      const depthLeft = Math.max(0, maxDepth - (context.parent.depth + 1))
      yield* Effect.tryPromise({
        try: () => writeFile(join(home, "config.toml"), `# written by the parent dsh for ${context.handle}\n[limits]\nmax_depth = ${depthLeft}\n`),
        catch: (e) => `cannot write the child's config: ${e instanceof Error ? e.message : String(e)}`
      })
      return { args: ["--model", model], env: { DSH_HOME: home } }
    })
})
