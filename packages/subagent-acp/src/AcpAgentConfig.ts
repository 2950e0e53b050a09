import type * as acp from "@agentclientprotocol/sdk/unstable"
import type { AgentDefinition } from "@dsh/agent"
import type { Vocabulary } from "@dsh/subagent"
import { OutOfProcessDriver } from "@dsh/subagent-outofprocess"
import type { Sandbox } from "@dsh/subprocess"
import { Duration, Effect, Schema } from "effect"
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
  /**
   * Runs the agent itself inside the provider's sandbox (bubblewrap: read-only file system
   * except its working directory, `writable` paths and a private /tmp; no network unless the
   * sandbox allows it — a vendor agent that calls its API needs `[sandbox] network = true`).
   */
  readonly sandbox?: boolean | undefined
  /** MCP servers passed to the agent in `session/new` (and `session/load`). */
  readonly mcpServers?: ReadonlyArray<acp.McpServer> | undefined
  /** Per-run additions (e.g. the parent's model spec and a state directory for `acp:dsh`). */
  readonly prepare?: ((context: Vocabulary.StartContext) => Effect.Effect<AcpLaunchAdditions, string>) | undefined
}

/** The delegation type name of an ACP agent. */
export const acpTypeName = (name: string): string => `acp:${name}`

/** The agent types (`acp:<name>`, provider `acp`) that the `subagent` tool offers for `agents`. */
export const acpAgentTypes = (agents: ReadonlyArray<AcpAgentConfig>): ReadonlyArray<Vocabulary.AgentType> =>
  agents.map((agent) => {
    const name = acpTypeName(agent.name)
    const definition: AgentDefinition.AgentDefinition = {
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
const stringTable = (v: unknown): v is Readonly<Record<string, string>> => isRecord(v) && Object.values(v).every((x) => typeof x === "string")
const pairs = (table: Readonly<Record<string, string>> | undefined) => Object.entries(table ?? {}).map(([name, value]) => ({ name, value }))

/** A `[acp.agents.<name>]` entry that cannot be used: the key, and what is wrong with it. */
export class AcpConfigError extends Schema.TaggedError<AcpConfigError>()("AcpConfigError", {
  key: Schema.String,
  message: Schema.String
}) {}

/** One `[acp.agents.<name>]` entry as read: usable (`ok`) or not (`invalid`, with the reason). */
export type AcpAgentEntry =
  | { readonly name: string; readonly command: string; readonly status: "ok"; readonly agent: AcpAgentConfig }
  | { readonly name: string; readonly command: string; readonly status: "invalid"; readonly key: string; readonly reason: string }

/**
 * `[acp.agents.<name>.mcp_servers.<server>]`: a stdio server (`command`, `args`, `env` table)
 * or an HTTP/SSE one (`url`, `headers` table, `type = "http"` (default) or `"sse"`), as ACP's
 * `McpServer` for `session/new`.
 */
const mcpServerOf = (agent: string, server: string, entry: unknown): acp.McpServer | { readonly key: string; readonly reason: string } => {
  const key = `[acp.agents.${agent}.mcp_servers.${server}]`
  if (!isRecord(entry)) return { key, reason: "must be a table" }
  if (entry.env !== undefined && !stringTable(entry.env)) return { key, reason: "\"env\" must be a table of strings" }
  if (entry.headers !== undefined && !stringTable(entry.headers)) return { key, reason: "\"headers\" must be a table of strings" }
  if (typeof entry.command === "string" && entry.command !== "") {
    if (entry.args !== undefined && !strings(entry.args)) return { key, reason: "\"args\" must be a list of strings" }
    return { name: server, command: entry.command, args: [...(entry.args as ReadonlyArray<string> | undefined ?? [])], env: pairs(entry.env as Record<string, string> | undefined) }
  }
  if (typeof entry.url === "string" && entry.url !== "") {
    const type = entry.type ?? "http"
    if (type !== "http" && type !== "sse") return { key, reason: "\"type\" must be \"http\" or \"sse\"" }
    return { type, name: server, url: entry.url, headers: pairs(entry.headers as Record<string, string> | undefined) }
  }
  return { key, reason: "\"command\" (a stdio server) or \"url\" (an HTTP server) is required" }
}

/** Reads one `[acp.agents.<name>]` entry. */
const entryOf = (name: string, entry: unknown): AcpAgentEntry => {
  const where = `[acp.agents.${name}]`
  const command = isRecord(entry) && typeof entry.command === "string" ? entry.command : ""
  const invalid = (reason: string, key = where): AcpAgentEntry => ({ name, command, status: "invalid", key, reason })
  if (!/^[a-z0-9][a-z0-9_-]*$/.test(name)) return invalid("the name must be lower-case letters, digits, - or _")
  if (!isRecord(entry)) return invalid("must be a table")
  if (command === "") return invalid("\"command\" is required")
  if (entry.args !== undefined && !strings(entry.args)) return invalid("\"args\" must be a list of strings")
  const env = entry.env
  const passEnv = strings(env) ? env : undefined
  const explicit = stringTable(env) ? env : undefined
  if (env !== undefined && passEnv === undefined && explicit === undefined) return invalid("\"env\" must be a list of variable names or a table of values")
  if (entry.description !== undefined && typeof entry.description !== "string") return invalid("\"description\" must be a string")
  if (entry.cwd !== undefined && typeof entry.cwd !== "string") return invalid("\"cwd\" must be \"parent\" or a directory")
  const timeout = entry.initialize_timeout_seconds
  if (timeout !== undefined && (typeof timeout !== "number" || !Number.isFinite(timeout) || timeout <= 0 || timeout > 3600)) {
    return invalid(`"initialize_timeout_seconds" = ${JSON.stringify(timeout)} is not allowed: it must be a number of seconds above 0, at most 3600`)
  }
  const mcpServers: Array<acp.McpServer> = []
  if (entry.mcp_servers !== undefined) {
    if (!isRecord(entry.mcp_servers)) return invalid("must be a table of servers", `[acp.agents.${name}.mcp_servers]`)
    for (const [server, definition] of Object.entries(entry.mcp_servers)) {
      const read = mcpServerOf(name, server, definition)
      if ("reason" in read) return invalid(read.reason, read.key)
      mcpServers.push(read)
    }
  }
  return {
    name,
    command,
    status: "ok",
    agent: {
      name,
      description: typeof entry.description === "string" ? entry.description : `the ACP agent "${command}"`,
      command,
      args: entry.args as ReadonlyArray<string> | undefined,
      passEnv,
      env: explicit,
      cwd: typeof entry.cwd === "string" ? entry.cwd : undefined,
      initializeTimeout: typeof timeout === "number" ? Duration.seconds(timeout) : undefined,
      ...(mcpServers.length === 0 ? {} : { mcpServers }),
      ...(entry.sandbox === true ? { sandbox: true } : {})
    }
  }
}

/** Every `[acp.agents.<name>]` entry of a parsed config.toml, usable or not, in file order. */
export const acpAgentEntries = (raw: unknown): ReadonlyArray<AcpAgentEntry> => {
  const table = isRecord(raw) && isRecord(raw.acp) && isRecord(raw.acp.agents) ? raw.acp.agents : {}
  return Object.entries(table).map(([name, entry]) => entryOf(name, entry))
}

/**
 * Reads `[acp.agents.<name>]` tables from a parsed config.toml:
 * `command` (required), `args`, `env` (names to pass through, or a table of explicit
 * values), `description`, `cwd` (`"parent"` or a directory), `initialize_timeout_seconds`,
 * `mcp_servers.<server>` (stdio: `command`, `args`, `env`; HTTP: `url`, `headers`, `type`).
 * Lenient: invalid entries are skipped with a warning and never break the other agents (for
 * listings); a harness that runs agents should use `decodeAcpAgents`, which refuses them.
 */
export const acpAgentsFromConfig = (raw: unknown): { readonly agents: ReadonlyArray<AcpAgentConfig>; readonly warnings: ReadonlyArray<string> } => {
  const entries = acpAgentEntries(raw)
  return {
    agents: entries.flatMap((e) => (e.status === "ok" ? [e.agent] : [])),
    warnings: entries.flatMap((e) => (e.status === "invalid" ? [`${e.key}: ${e.reason}`] : []))
  }
}

/**
 * Reads `[acp.agents.<name>]` tables strictly: the first invalid entry is an `AcpConfigError`
 * naming its key (`file` prefixes the message), so a run never silently loses an agent.
 */
export const decodeAcpAgents = (raw: unknown, file: string): Effect.Effect<ReadonlyArray<AcpAgentConfig>, AcpConfigError> => {
  const entries = acpAgentEntries(raw)
  const bad = entries.find((e) => e.status === "invalid")
  if (bad !== undefined && bad.status === "invalid") return Effect.fail(new AcpConfigError({ key: bad.key, message: `${file}: ${bad.key} ${bad.reason}` }))
  return Effect.succeed(entries.flatMap((e) => (e.status === "ok" ? [e.agent] : [])))
}

const sandboxSection = (sandbox: Sandbox.SandboxSettings | undefined): string =>
  sandbox === undefined ? "" : `[sandbox]\nmode = ${JSON.stringify(sandbox.mode)}\nnetwork = ${sandbox.network}\nwritable = ${JSON.stringify(sandbox.writable)}\n`

/** Credentials and settings a dsh child needs to reach the same models as its parent. */
export const DSH_CHILD_ENV: ReadonlyArray<string> = ["OPENAI_BASE_URL", "OPENAI_API_KEY", "ANTHROPIC_*", "DSH_LOG_LEVEL", "OTEL_*", "DSH_OTEL_*"]

/** A directory for the child's own `$DSH_HOME`: beside its transcript when the store is on disk. */
const childHome = (context: Vocabulary.StartContext): Effect.Effect<string, string> => {
  const location = context.store?.location
  return Effect.tryPromise({
    try: async () => {
      if (location !== undefined && isAbsolute(location)) {
        const dir = join(location, "dsh-home")
        // Inside the session directory: owner-only like it (the child's sessions hold its prompts).
        await mkdir(dir, { recursive: true, mode: 0o700 })
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
  /** The session tree's depth limit (default: the tree's own limit); a function when the tree is built later. */
  readonly maxDepth?: number | (() => number) | undefined
  readonly passEnv?: ReadonlyArray<string> | undefined
  /** The parent's `[sandbox]`, written to the child's config so its Bash is confined the same way. */
  readonly sandbox?: Sandbox.SandboxSettings | undefined
  /** More TOML for the child's `config.toml`, e.g. the parent's `[providers.*]` so the child reaches the same models. */
  readonly configToml?: string | undefined
}): AcpAgentConfig => ({
  name: "dsh",
  description: "a dsh agent in its own process (over ACP): isolated memory and crash boundary, same tools and model",
  command: options.command,
  args: [...options.args, "acp"],
  passEnv: options.passEnv ?? DSH_CHILD_ENV,
  cwd: "parent",
  prepare: (context) =>
    Effect.gen(function*() {
      const model = OutOfProcessDriver.childModelSpec(context)
      const home = yield* childHome(context)
      const maxDepth = typeof options.maxDepth === "function" ? options.maxDepth() : options.maxDepth ?? context.limits.maxDepth
      const depthLeft = Math.max(0, maxDepth - (context.parent.depth + 1))
      yield* Effect.tryPromise({
        try: () => writeFile(join(home, "config.toml"), `# written by the parent dsh for ${context.handle}\n[limits]\nmax_depth = ${depthLeft}\n${sandboxSection(options.sandbox)}${options.configToml ?? ""}`, { mode: 0o600 }),
        catch: (e) => `cannot write the child's config: ${e instanceof Error ? e.message : String(e)}`
      })
      return { args: ["--model", model], env: { DSH_HOME: home } }
    })
})
