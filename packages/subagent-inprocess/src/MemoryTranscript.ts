import { Events } from "@dsh/core"
import type { SessionStore } from "@dsh/session"
import { Effect } from "effect"

/** A transcript that lives in memory, for children of contexts that persist nothing. */
export const make = (location = "memory"): SessionStore.Transcript => {
  const records: Array<Events.WireRecord> = []
  return {
    location,
    append: (event: Events.AgentEvent) =>
      Effect.sync(() => {
        if (!Events.isEphemeral(event)) records.push({ ...event, seq: records.length + 1, ts: new Date().toISOString() })
      }),
    sync: Effect.void,
    read: Effect.sync(() => ({ records: [...records], warnings: [] })),
    readFrom: (cursor) => Effect.sync(() => ({ records: records.slice(cursor), warnings: [], cursor: Math.max(cursor, records.length) }))
  }
}
