/**
 * `wire.jsonl` framing: one JSON `WireRecord` per LF-terminated line. Parsing never fails:
 * lines that are not records are skipped and reported as warnings, so a crash mid-write or a
 * hand-edited file costs at most the damaged lines.
 */
import type { Events } from "@dsh/core"

/** One record as its line, LF included. `seq` and `ts` come first so the file reads well. */
export const encodeRecord = (event: Events.AgentEvent, seq: number, ts: string): string =>
  JSON.stringify({ seq, ts, ...event }) + "\n"

const isRecord = (value: unknown): value is Events.WireRecord =>
  typeof value === "object" && value !== null &&
  "seq" in value && typeof value.seq === "number" && Number.isSafeInteger(value.seq) &&
  "ts" in value && typeof value.ts === "string" &&
  "type" in value && typeof value.type === "string"

/** A parsed value as a record, or `undefined` when it is not one (no `seq`, `ts` or `type`). */
export const decodeRecord = (value: unknown): Events.WireRecord | undefined => isRecord(value) ? value : undefined

/** The record on one line, or `undefined` when the line is not one. */
export const decodeLine = (line: string): Events.WireRecord | undefined => {
  try {
    return decodeRecord(JSON.parse(line))
  } catch {
    return undefined
  }
}

export interface ParsedWire {
  readonly records: Array<Events.WireRecord>
  readonly warnings: Array<string>
  /** The highest `seq` seen (0 for none): the next append continues after it. */
  readonly lastSeq: number
}

/**
 * Parses a whole file (or a tail of one when `partialStart`, whose first fragment is then
 * dropped unread). The text after the last LF is a torn line: kept if it happens to be a
 * complete record, otherwise skipped with a warning. Blank lines are skipped silently.
 */
export const parseWire = (text: string, location: string, partialStart = false): ParsedWire => {
  const records: Array<Events.WireRecord> = []
  const warnings: Array<string> = []
  let lastSeq = 0
  const lines = text.split("\n")
  const torn = lines.pop() ?? ""
  const take = (line: string, lineNumber: number, isTorn: boolean) => {
    if (line.trim() === "") return
    const record = decodeLine(line)
    if (record !== undefined) {
      records.push(record)
      if (record.seq > lastSeq) lastSeq = record.seq
    } else if (isTorn) {
      warnings.push(`${location}: skipped a torn last line (${line.length} characters, probably an interrupted write)`)
    } else {
      warnings.push(`${location}:${lineNumber}: skipped a malformed line`)
    }
  }
  for (let i = partialStart ? 1 : 0; i < lines.length; i++) take(lines[i] ?? "", i + 1, false)
  if (!(partialStart && lines.length === 0)) take(torn, lines.length + 1, true)
  return { records, warnings, lastSeq }
}
