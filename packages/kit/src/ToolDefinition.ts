/** A tool any agent loop can offer its model: JSON Schema parameters and a Promise `execute`. */
export interface KitToolDefinition {
  readonly name: string
  readonly description: string
  /** JSON Schema of the arguments. */
  readonly inputSchema: Readonly<Record<string, unknown>>
  /** Runs the tool; the abort signal stops the child (and its descendants) the call started. Resolves to text for the model. */
  readonly execute: (args: unknown, options?: { readonly signal?: AbortSignal | undefined }) => Promise<string>
}
