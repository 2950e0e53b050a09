/** A tool any agent loop can offer its model: JSON Schema parameters and a Promise `execute`. */
export interface KitToolDefinition {
  readonly name: string
  readonly description: string
  /** JSON Schema of the arguments. */
  readonly inputSchema: Readonly<Record<string, unknown>>
  /** Runs the tool; the abort signal stops the child (and its descendants) the call started. Resolves to text for the model. */
  readonly execute: (args: unknown, options?: { readonly signal?: AbortSignal | undefined }) => Promise<string>
}

/** What a `subagent` call gives back: the text the model reads, and with `resultSchema` the structured result. */
export interface SubagentOutcome {
  readonly text: string
  readonly structured?: { readonly handle: string; readonly status: string; readonly text: string; readonly result: unknown } | undefined
}

/** Starts one `subagent` call: its prompt (how its child is known in the event stream) and its outcome. */
export type SubagentCall = (args: unknown, signal: AbortSignal | undefined) => { readonly prompt: string; readonly result: Promise<SubagentOutcome> }
