import type { AgentEvent, RunStatus, Usage } from "@dsh/core"
import { Effect } from "effect"
import type { Writable } from "node:stream"

export type OutputFormat = "text" | "json" | "stream-json"
export const OUTPUT_FORMATS: ReadonlyArray<OutputFormat> = ["text", "json", "stream-json"]

export interface SubagentSummary {
  readonly name: string
  readonly agent: string
  readonly provider: string
  readonly status: string
}

/** The one object `--output-format json` prints (the CLI contract). */
export interface RunSummary {
  readonly sessionId: string
  readonly status: RunStatus
  readonly result: string
  readonly usage: Usage
  readonly subagents: ReadonlyArray<SubagentSummary>
  readonly error?: string | undefined
}

export const writeLine = (out: Writable, line: string): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    const ok = out.write(`${line}\n`)
    if (ok) resume(Effect.void)
    else out.once("drain", () => resume(Effect.void))
  })

/** Live events for the chosen format: stream-json forwards all of them; the others none. */
export const eventWriter = (format: OutputFormat, out: Writable) => (event: AgentEvent): Effect.Effect<void> =>
  format === "stream-json" ? writeLine(out, JSON.stringify(event)) : Effect.void

export const writeSummary = (format: OutputFormat, out: Writable, summary: RunSummary): Effect.Effect<void> => {
  switch (format) {
    case "json":
      return writeLine(out, JSON.stringify(summary))
    case "stream-json":
      return writeLine(out, JSON.stringify({ type: "result", ...summary }))
    case "text":
      return summary.result === "" ? Effect.void : writeLine(out, summary.result)
  }
}
