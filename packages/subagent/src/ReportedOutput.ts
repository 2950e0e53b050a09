import type { ReportedResult } from "./Vocabulary.ts"

/**
 * A reported result as the child's output: its text, then its JSON (one line) as the last
 * paragraph. Drivers write it with this; parents that asked for a `resultSchema` read the JSON
 * back with `reportedJsonOf`.
 */
export const reportedOutput = (report: ReportedResult): string =>
  report.json === undefined ? report.text : `${report.text}\n\n${JSON.stringify(report.json)}`

/** The JSON of an output `reportedOutput` wrote; not found when the last paragraph is not JSON. */
export const reportedJsonOf = (output: string): { readonly found: true; readonly json: unknown } | { readonly found: false } => {
  const at = output.lastIndexOf("\n\n")
  const tail = (at < 0 ? output : output.slice(at + 2)).trim()
  try {
    return { found: true, json: JSON.parse(tail) as unknown }
  } catch {
    return { found: false }
  }
}
