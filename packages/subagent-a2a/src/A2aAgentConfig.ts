import type { AgentDefinition } from "@dsh/agent"
import type { Vocabulary } from "@dsh/subagent"

/** The provider name every A2A agent type runs on. */
export const A2A_PROVIDER = "a2a"

/** One remote A2A agent a parent can delegate to, as `a2a:<name>`. */
export interface A2aAgentConfig {
  /** `echo` becomes the agent type `a2a:echo`. */
  readonly name: string
  /** The agent's base URL (its card is at `/.well-known/agent-card.json`) or its card's own URL (`….json`); "" with `cardJson`. */
  readonly url: string
  /** The card itself (a Gemini CLI file's `agent_card_json`): read instead of fetching one. */
  readonly cardJson?: string | undefined
  /** The agent file that declared it (a Gemini CLI `kind: remote` file); default config.toml's entry. */
  readonly source?: string | undefined
  /** Sent with every request (card included); `${VAR}` is read from `env`, then the environment. */
  readonly headers?: Readonly<Record<string, string>> | undefined
  /** Values for `${VAR}` in `headers`; their own `${VAR}` are read from the environment. */
  readonly env?: Readonly<Record<string, string>> | undefined
  /** What the model is told it is for; default: the card's description. */
  readonly description?: string | undefined
  /** The wall-clock limit of one run of this agent (default: the tree's). */
  readonly timeoutSeconds?: number | undefined
}

/** The delegation type name of an A2A agent. */
export const a2aTypeName = (name: string): string => `a2a:${name}`

/** What a harness knows of an agent's card, for its description to the model. */
export interface CardSummary {
  readonly name: string
  readonly description: string
  readonly skills: ReadonlyArray<{ readonly name: string; readonly description: string }>
}

/** The agent type of an A2A agent whose card was read: described to the model from the card. */
export const a2aAgentType = (agent: A2aAgentConfig, card: CardSummary): Vocabulary.AgentType => {
  const name = a2aTypeName(agent.name)
  const skills = card.skills.map((s) => `${s.name}${s.description === "" ? "" : ` (${s.description})`}`).join("; ")
  const description = agent.description ?? `${card.name}: ${card.description}${skills === "" ? "" : ` Skills: ${skills}`}`
  const definition: AgentDefinition.AgentDefinition = {
    name,
    description,
    whenToUse: "a remote agent spoken to over A2A; give it a complete, self-contained task",
    systemPrompt: "",
    override: false,
    mode: "subagent",
    scope: "runtime",
    source: agent.source ?? `config:a2a.agents.${agent.name}`
  }
  return { name, description, provider: A2A_PROVIDER, definition }
}

/** `${VAR}` replaced from `vars`, then `env`; an unknown variable becomes "". */
export const interpolate = (text: string, ...sources: ReadonlyArray<Readonly<Record<string, string | undefined>>>): string =>
  text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    for (const source of sources) {
      const value = source[name]
      if (value !== undefined) return value
    }
    return ""
  })

/** The headers an agent's requests carry, with `${VAR}` resolved. */
export const headersOf = (agent: A2aAgentConfig, environment: Readonly<Record<string, string | undefined>>): Record<string, string> => {
  const vars = Object.fromEntries(Object.entries(agent.env ?? {}).map(([k, v]) => [k, interpolate(v, environment)]))
  return Object.fromEntries(Object.entries(agent.headers ?? {}).map(([k, v]) => [k, interpolate(v, vars, environment)]))
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)
const stringTable = (v: unknown): v is Readonly<Record<string, string>> => isRecord(v) && Object.values(v).every((x) => typeof x === "string")

/** One `[a2a.agents.<name>]` entry as read: usable (`ok`) or not (`invalid`, with the reason). */
export type A2aAgentEntry =
  | { readonly name: string; readonly url: string; readonly status: "ok"; readonly agent: A2aAgentConfig }
  | { readonly name: string; readonly url: string; readonly status: "invalid"; readonly reason: string }

/** Checks one agent as a harness gives it (config or library): a reason when it cannot be used. */
export const checkA2aAgent = (agent: A2aAgentConfig): string | undefined => {
  if (!/^[a-z0-9][a-z0-9_-]*$/.test(agent.name)) return "the name must be lower-case letters, digits, - or _"
  if (agent.cardJson !== undefined && agent.url === "") return checkTimeout(agent)
  let parsed: URL
  try {
    parsed = new URL(agent.url)
  } catch {
    return `"url" = ${JSON.stringify(agent.url)} is not a URL`
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return `"url" must be http or https, not ${parsed.protocol}`
  return checkTimeout(agent)
}

const checkTimeout = (agent: A2aAgentConfig): string | undefined => {
  const t = agent.timeoutSeconds
  if (t !== undefined && (!Number.isFinite(t) || t <= 0 || t > 86_400)) return `"timeout_seconds" = ${t} must be a number of seconds above 0, at most 86400`
  return undefined
}

const entryOf = (name: string, entry: unknown): A2aAgentEntry => {
  const url = isRecord(entry) && typeof entry.url === "string" ? entry.url : ""
  const invalid = (reason: string): A2aAgentEntry => ({ name, url, status: "invalid", reason })
  if (!isRecord(entry)) return invalid("must be a table")
  if (url === "") return invalid("\"url\" is required")
  if (entry.headers !== undefined && !stringTable(entry.headers)) return invalid("\"headers\" must be a table of strings")
  if (entry.env !== undefined && !stringTable(entry.env)) return invalid("\"env\" must be a table of strings")
  if (entry.description !== undefined && typeof entry.description !== "string") return invalid("\"description\" must be a string")
  if (entry.timeout_seconds !== undefined && typeof entry.timeout_seconds !== "number") return invalid("\"timeout_seconds\" must be a number")
  const agent: A2aAgentConfig = {
    name,
    url,
    ...(entry.headers === undefined ? {} : { headers: entry.headers as Record<string, string> }),
    ...(entry.env === undefined ? {} : { env: entry.env as Record<string, string> }),
    ...(typeof entry.description === "string" ? { description: entry.description } : {}),
    ...(typeof entry.timeout_seconds === "number" ? { timeoutSeconds: entry.timeout_seconds } : {})
  }
  const why = checkA2aAgent(agent)
  return why === undefined ? { name, url, status: "ok", agent } : invalid(why)
}

/**
 * Every `[a2a.agents.<name>]` entry of a parsed config.toml, usable or not, in file order:
 * `url` (required), `headers`, `env`, `description`, `timeout_seconds`.
 */
export const a2aAgentEntries = (raw: unknown): ReadonlyArray<A2aAgentEntry> => {
  const table = isRecord(raw) && isRecord(raw.a2a) && isRecord(raw.a2a.agents) ? raw.a2a.agents : {}
  return Object.entries(table).map(([name, entry]) => entryOf(name, entry))
}

/** The library's way to name remote agents (the same fields as config.toml, camel-cased). */
export const a2aAgents = (agents: ReadonlyArray<A2aAgentConfig>): ReadonlyArray<A2aAgentConfig> => agents

/** A Gemini CLI remote agent file as an agent-file resolution returns it (`@dsh/agent`'s `RemoteAgentSpec`). */
export interface A2aAgentFile {
  readonly name: string
  readonly url?: string | undefined
  readonly cardJson?: string | undefined
  readonly description?: string | undefined
  readonly source: string
}

/** A file that lost its name to a `[a2a.agents.<name>]` entry (listed as shadowed). */
export interface ShadowedA2aFile {
  readonly path: string
  readonly name: string
  readonly by: string
}

/**
 * The A2A agents of a harness: the configured ones, then each remote agent file whose name no
 * configured agent (nor an earlier file) has. The config is the user's word, so it wins a name;
 * a file that loses one is shadowed by that entry.
 */
export const withA2aAgentFiles = (
  configured: ReadonlyArray<A2aAgentConfig>,
  files: ReadonlyArray<A2aAgentFile>,
  /** Names declared in config.toml, usable or not: an invalid entry still holds its name. */
  declared: ReadonlyArray<string> = configured.map((a) => a.name)
): { readonly agents: ReadonlyArray<A2aAgentConfig>; readonly shadowed: ReadonlyArray<ShadowedA2aFile> } => {
  const taken = new Map<string, string>(declared.map((n) => [n, `config:a2a.agents.${n}`]))
  const agents: Array<A2aAgentConfig> = [...configured]
  const shadowed: Array<ShadowedA2aFile> = []
  for (const f of files) {
    const by = taken.get(f.name)
    if (by !== undefined) {
      shadowed.push({ path: f.source, name: a2aTypeName(f.name), by })
      continue
    }
    taken.set(f.name, f.source)
    agents.push({
      name: f.name,
      url: f.url ?? "",
      ...(f.url === undefined && f.cardJson !== undefined ? { cardJson: f.cardJson } : {}),
      ...(f.description === undefined ? {} : { description: f.description }),
      source: f.source
    })
  }
  return { agents, shadowed }
}
