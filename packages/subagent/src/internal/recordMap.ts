/**
 * The descriptor book's records by handle, decoded from the stored state either at once (the
 * owner's tree, which recovers every child on load) or as they are asked for (a tree hosting one
 * run for another owner: a runner builds one per run, and decoding and sorting every child of a
 * large session each time was a runner's largest cost). Records set before the whole map was
 * decoded keep their place: the stored ones in their stored order, new ones after, as eager
 * loading gives.
 */
import { type SessionStore, StoreKit } from "@dsh/session"
import { type Decoded, decodeDescriptorEntry, decodeDescriptors, type SubagentDescriptor } from "../Records.ts"

/** A stored value as a map (an empty one when it is not). */
export const asRecord = (value: unknown): Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : {}

const hasOwn = (o: object, key: string) => Object.prototype.hasOwnProperty.call(o, key)

export interface RecordMap {
  readonly get: (handle: string) => SubagentDescriptor | undefined
  readonly set: (d: SubagentDescriptor) => void
  /** Every record (decoding what was not yet), oldest stored first. */
  readonly values: () => ReadonlyArray<SubagentDescriptor>
  /** The records of a newer stored state whose stored value changed since the last one looked at. */
  readonly changedIn: (state: Readonly<Record<string, unknown>>) => ReadonlyArray<SubagentDescriptor>
}

/** `decoded`: the state decoded now (eager), or `undefined` to decode records when asked for. */
export const makeRecordMap = (state: SessionStore.SessionState | undefined, decoded: Decoded<SubagentDescriptor> | undefined): RecordMap => {
  const stored = asRecord(state?.subagents)
  // Set (or merged) while the whole map was not decoded yet.
  const early = new Map<string, SubagentDescriptor>()
  let all: Map<string, SubagentDescriptor> | undefined
  const whole = (): Map<string, SubagentDescriptor> => {
    if (all !== undefined) return all
    const records = (decoded ?? (state === undefined ? { records: [] } : decodeDescriptors(state))).records
    const m = new Map(records.map((d) => [d.handle, early.get(d.handle) ?? d]))
    for (const [handle, d] of early) if (!m.has(handle)) m.set(handle, d)
    early.clear()
    all = m
    return m
  }
  if (decoded !== undefined) whole()

  const fromStored = (handle: string): SubagentDescriptor | undefined => {
    if (!hasOwn(stored, handle)) return undefined
    const d = decodeDescriptorEntry(stored[handle])
    return d?.handle === handle ? d : undefined
  }

  // The stored map `changedIn` last looked at: an entry with the same frozen value decodes to the same record.
  let seen: Readonly<Record<string, unknown>> = stored
  const changedIn = (next: Readonly<Record<string, unknown>>): ReadonlyArray<SubagentDescriptor> => {
    whole()
    const raw = next.subagents
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return []
    const before = seen
    const map = raw as Readonly<Record<string, unknown>>
    seen = map
    const out: Array<SubagentDescriptor> = []
    // A map copied from the last one with a few records changed is read on those alone.
    for (const key of StoreKit.changedBetween(before, map) ?? Object.keys(map)) {
      if (!hasOwn(map, key)) continue
      const value = map[key]
      if (value === before[key] && Object.isFrozen(value)) continue
      const d = decodeDescriptorEntry(value)
      if (d !== undefined) out.push(d)
    }
    return out
  }

  return {
    get: (handle) => (all !== undefined ? all.get(handle) : early.get(handle) ?? fromStored(handle)),
    set: (d) => void (all ?? early).set(d.handle, d),
    values: () => [...whole().values()],
    changedIn
  }
}
