import type { AgentEvent, WireRecord } from "@dsh/core"
import { isEphemeral } from "@dsh/core"
import type { Transcript } from "@dsh/session"
import { Effect } from "effect"

/** A transcript that lives in memory, for children of contexts that persist nothing. */
export const makeMemoryTranscript = (location = "memory"): Transcript => {
  const records: Array<WireRecord> = []
  return {
    location,
    append: (event: AgentEvent) =>
      Effect.sync(() => {
        if (!isEphemeral(event)) records.push({ ...event, seq: records.length + 1, ts: new Date().toISOString() })
      }),
    sync: Effect.void,
    read: Effect.sync(() => ({ records: [...records], warnings: [] })),
    readFrom: (cursor) => Effect.sync(() => ({ records: records.slice(cursor), warnings: [], cursor: Math.max(cursor, records.length) }))
  }
}
