import type { AgentScope } from "../AgentDefinition.ts"

/** A file that could not be loaded, with the reason a user can act on. */
export interface InvalidAgentFile {
  readonly _tag: "Invalid"
  readonly path: string
  readonly reason: string
}

export interface ParseAgentFileOptions {
  /** Defaults to `explicit` (a file named on the command line). */
  readonly scope?: AgentScope | undefined
}
