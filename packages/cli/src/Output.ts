import type { HostPromptResult } from "@dsh/agent"
import type { AgentEvent } from "@dsh/core"
import { Effect } from "effect"
import type { Writable } from "node:stream"

export type OutputFormat = "text" | "json" | "stream-json"
export const OUTPUT_FORMATS: ReadonlyArray<OutputFormat> = ["text", "json", "stream-json"]


export const writeLine = (out: Writable, line: string): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    const ok = out.write(`${line}\n`)
    if (ok) resume(Effect.void)
    else out.once("drain", () => resume(Effect.void))
  })

/** Live events for the chosen format: stream-json forwards all of them; the others none. */
export const eventWriter = (format: OutputFormat, out: Writable) => (event: AgentEvent): Effect.Effect<void> =>
  format === "stream-json" ? writeLine(out, JSON.stringify(event)) : Effect.void

/**
 * The one object `--output-format json` prints (the CLI contract's fields, in its order), plus
 * `cost` in US dollars (the main agent's, and each child's latest run) where pricing is configured.
 */
export const summaryJson = (s: HostPromptResult) => ({
  sessionId: s.sessionId,
  status: s.status,
  result: s.result,
  usage: s.usage,
  ...(s.cost === undefined ? {} : { cost: s.cost }),
  subagents: s.subagents.map((c) => ({
    name: c.name,
    agent: c.agent,
    provider: c.provider,
    status: c.status,
    ...(c.cost === undefined ? {} : { cost: c.cost })
  })),
  ...(s.error === undefined ? {} : { error: s.error })
})

/** US dollars for people: `$0.0123`. */
export const formatCost = (cost: number): string => `$${cost.toFixed(4)}`

export const writeSummary = (format: OutputFormat, out: Writable, s: HostPromptResult): Effect.Effect<void> => {
  const summary = summaryJson(s)
  switch (format) {
    case "json":
      return writeLine(out, JSON.stringify(summary))
    case "stream-json":
      return writeLine(out, JSON.stringify({ type: "result", ...summary }))
    case "text":
      return summary.result === "" ? Effect.void : writeLine(out, summary.result)
  }
}
