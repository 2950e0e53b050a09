import { Events } from "@dsh/core"
import type { SessionStore } from "@dsh/session"
import { Effect } from "effect"

/**
 * Children's stores for a tree without a session: in memory, one per handle for as long as the
 * tree lives, so a child continued in this process keeps its history (what the file store's
 * `agents/<handle>/` does across processes).
 */
export const makeMemoryChildStores = () => {
  const stores = new Map<string, SessionStore.ChildStore>()
  const make = (name: string): SessionStore.ChildStore => {
    const records: Array<Events.WireRecord> = []
    let meta: unknown
    return {
      name,
      location: `memory:${name}`,
      transcript: {
        location: `memory:${name}/wire.jsonl`,
        append: (event: Events.AgentEvent) =>
          Events.isEphemeral(event) ? Effect.void : Effect.clockWith((clock) =>
            Effect.sync(() => void records.push({ ...event, seq: records.length + 1, ts: new Date(clock.currentTimeMillisUnsafe()).toISOString() }))
          ),
        sync: Effect.void,
        read: Effect.sync(() => ({ records: [...records], warnings: [] })),
        readFrom: (cursor) => Effect.sync(() => ({ records: records.slice(cursor), warnings: [], cursor: Math.max(cursor, records.length) }))
      },
      readMeta: Effect.sync(() => meta),
      writeMeta: (value) => Effect.sync(() => void (meta = value))
    }
  }
  return {
    get: (name: string): SessionStore.ChildStore => {
      const known = stores.get(name)
      if (known !== undefined) return known
      const made = make(name)
      stores.set(name, made)
      return made
    }
  }
}

