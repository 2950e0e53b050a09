import type { AgentDefinition } from "@dsh/agent"

/** Agent files above this size are skipped without being read (256 KiB). */
export const MAX_AGENT_FILE_BYTES = 256 * 1024

/** A file that could not be loaded, with the reason a user can act on. */
export interface InvalidAgentFile {
  readonly _tag: "Invalid"
  readonly path: string
  readonly reason: string
}

export interface ParseAgentFileOptions {
  /** Defaults to `explicit` (a file named on the command line). */
  readonly scope?: AgentDefinition.AgentScope | undefined
}
