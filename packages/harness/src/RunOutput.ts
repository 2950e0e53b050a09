import type { AgentHost } from "@dsh/agent"
import { type Events, Usage } from "@dsh/core"
import { Effect } from "effect"
import { isAbsolute } from "node:path"
import type { Readable, Writable } from "node:stream"

/**
 * A headless run's output (`dsh run --output-format`): the final result as text, one JSON
 * summary object, or every event as a JSON line then the summary; what a harness prints for a
 * script to parse, so its fields are a contract.
 */
export type OutputFormat = "text" | "json" | "stream-json"
export const OUTPUT_FORMATS: ReadonlyArray<OutputFormat> = ["text", "json", "stream-json"]

/** Writes one line, waiting for `out` to drain when its buffer is full (a slow reader slows the run, never loses lines). */
export const writeLine = (out: Writable, line: string): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    const ok = out.write(`${line}\n`)
    if (ok) resume(Effect.void)
    else out.once("drain", () => resume(Effect.void))
  })

/** Live events for the chosen format: stream-json forwards all of them; the others none. */
export const eventWriter = (format: OutputFormat, out: Writable) => (event: Events.AgentEvent): Effect.Effect<void> =>
  format === "stream-json" ? writeLine(out, JSON.stringify(event)) : Effect.void

/**
 * The one object `--output-format json` prints (the CLI contract's fields, in its order), plus
 * `cost` in US dollars (the main agent's, and each child's latest run) where pricing is configured.
 */
export const summaryJson = (s: AgentHost.HostPromptResult) => ({
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

/** Writes a run's summary in `format` (text: the result alone, nothing when it is empty). */
export const writeSummary = (format: OutputFormat, out: Writable, s: AgentHost.HostPromptResult): Effect.Effect<void> => {
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

/** Where a session lives, for a message: the file store's directory, or the database's location. */
const storeOf = (session: { readonly location: string }): string =>
  isAbsolute(session.location) ? `the file store (${session.location})` : `the session store (${session.location})`

/**
 * A run's summary when its session store failed (mid-run, or under a run that otherwise
 * completed): failed, naming the store and the first cause, keeping what the run produced.
 */
export const storeFailedSummary = (session: { readonly id: string; readonly location: string }, cause: string, ran?: AgentHost.HostPromptResult): AgentHost.HostPromptResult => ({
  sessionId: session.id,
  result: ran?.result ?? "",
  usage: ran?.usage ?? Usage.emptyUsage,
  subagents: ran?.subagents ?? [],
  ...(ran?.cost === undefined ? {} : { cost: ran.cost }),
  status: "failed",
  error: `${storeOf(session)} failed: ${cause}`
})

/** All of `input` as text (a prompt piped in); nothing from a terminal. */
export const readInput = (input: Readable & { readonly isTTY?: boolean | undefined }): Effect.Effect<string> =>
  input.isTTY === true
    ? Effect.succeed("")
    : Effect.promise(async () => {
      const chunks: Array<Buffer> = []
      for await (const chunk of input) chunks.push(Buffer.from(chunk as Uint8Array))
      return Buffer.concat(chunks).toString("utf8")
    })
