import type { InvalidAgentFile, ParseAgentFileOptions } from "./AgentFileParts.ts"

/**
 * Gemini CLI's remote subagents: a Markdown file with `kind: remote` and the agent's A2A card
 * (`agent_card_url`, or the card inline as `agent_card_json`) instead of a prompt. dsh runs such
 * an agent only through an A2A backend (`@dsh/subagent-a2a`, type `a2a:<name>`): a resolution
 * that has one (`remoteAgents: "a2a"`) collects the file as a remote agent; otherwise the file is
 * skipped, saying how to declare the agent to an A2A backend.
 */

export interface RemoteAgentSpec {
  /** The file's name (kebab-case form); the delegation type is `a2a:<name>`. */
  readonly name: string
  /** The card's URL, when the file names one. */
  readonly url?: string | undefined
  /** The card itself (`agent_card_json`), when the file carries it inline. */
  readonly cardJson?: string | undefined
  readonly description?: string | undefined
  readonly source: string
}

/** A file that is a remote agent: skipped unless the resolution takes remote agents (see above). */
export interface RemoteAgentFileResult extends InvalidAgentFile {
  readonly remote: RemoteAgentSpec
}

export const isRemoteKind = (kind: unknown): boolean => typeof kind === "string" && kind.trim().toLowerCase() === "remote"

const text = (value: unknown): string | undefined => (typeof value === "string" && value.trim() !== "" ? value.trim() : undefined)

export const remoteAgentFile = (
  fm: Readonly<Record<string, unknown>>,
  name: string,
  path: string,
  _options: ParseAgentFileOptions
): InvalidAgentFile | RemoteAgentFileResult => {
  const url = text(fm.agent_card_url)
  const cardJson = typeof fm.agent_card_json === "string" ? fm.agent_card_json : fm.agent_card_json === undefined ? undefined : JSON.stringify(fm.agent_card_json)
  if (url === undefined && cardJson === undefined) {
    return { _tag: "Invalid", path, reason: "kind: remote (a Gemini CLI A2A agent) without agent_card_url or agent_card_json; add the card's URL" }
  }
  const remote: RemoteAgentSpec = { name, url, cardJson, description: text(fm.description), source: path }
  const declare = url === undefined
    ? `serve its card at a URL and add [a2a.agents.${name}] url = "<card URL>" to config.toml`
    : `add [a2a.agents.${name}] url = "${url}" to config.toml`
  return {
    _tag: "Invalid",
    path,
    reason: `a remote A2A agent (kind: remote), not a prompt; this resolution has no A2A backend for agent files: ${declare} to delegate to it as a2a:${name}`,
    remote
  }
}

/** The remote agent a skipped file describes, if it is one. */
export const remoteSpecOf = (result: InvalidAgentFile): RemoteAgentSpec | undefined =>
  "remote" in result ? (result as RemoteAgentFileResult).remote : undefined
