/**
 * A state change as a patch: the top-level keys set or removed, and, for a key whose value is a
 * map (a plain object, e.g. `subagents`), only the entries that changed. A store that appends
 * patches instead of rewriting the whole state writes one child's record per update, not every
 * child's: with 1,000 children, a few hundred bytes instead of a megabyte.
 *
 * A patch holds values, never increments, so applying it twice gives what applying it once did:
 * a log of patches replayed over a state that already includes some of them is still right.
 */
import type { SessionState } from "../SessionStore.ts"
import { changedBetween, copyMap, freezeCopy } from "./mapLineage.ts"
import { snapshot } from "./state.ts"

export interface StatePatch {
  /** Top-level keys and their new values. */
  readonly set?: Readonly<Record<string, unknown>> | undefined
  /** Top-level keys removed. */
  readonly unset?: ReadonlyArray<string> | undefined
  /** For map-valued keys: the entries set (by entry key). */
  readonly entries?: Readonly<Record<string, Readonly<Record<string, unknown>>>> | undefined
  /** For map-valued keys: the entries removed. */
  readonly drop?: Readonly<Record<string, ReadonlyArray<string>>> | undefined
}

const isMap = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const hasOwn = (o: object, key: string) => Object.prototype.hasOwnProperty.call(o, key)

/**
 * What changed from `prev` to `next`, or `undefined` when nothing did. Values are compared by
 * identity: stores keep frozen snapshots whose unchanged parts are shared, so an update that
 * spreads the old state changes the identity only of what it changed. A map whose entries mostly
 * changed is set whole.
 */
export const diffState = (prev: SessionState, next: SessionState): StatePatch | undefined => {
  const set: Record<string, unknown> = {}
  const unset: Array<string> = []
  const entries: Record<string, Record<string, unknown>> = {}
  const drop: Record<string, Array<string>> = {}
  let changed = false
  for (const key of Object.keys(next)) {
    const before = prev[key]
    const after = next[key]
    if (before === after && hasOwn(prev, key)) continue
    changed = true
    if (!isMap(before) || !isMap(after)) {
      set[key] = after
      continue
    }
    const setHere: Record<string, unknown> = {}
    const dropHere: Array<string> = []
    let count = 0
    // A map copied from the other with a few entries changed is compared on those entries alone.
    const candidates = changedBetween(before, after)
    for (const entry of candidates ?? Object.keys(after)) {
      if (!hasOwn(after, entry)) continue
      if (before[entry] !== after[entry] || !hasOwn(before, entry)) {
        setHere[entry] = after[entry]
        count++
      }
    }
    for (const entry of candidates ?? Object.keys(before)) if (!hasOwn(after, entry) && hasOwn(before, entry)) dropHere.push(entry)
    // Mostly changed: set whole (the size is counted only when the change is not tiny).
    const changes = (count + dropHere.length) * 2
    if (changes > 8 && changes > Object.keys(after).length + 8) {
      set[key] = after
      continue
    }
    if (count > 0) entries[key] = setHere
    if (dropHere.length > 0) drop[key] = dropHere
  }
  for (const key of Object.keys(prev)) {
    if (!hasOwn(next, key)) {
      unset.push(key)
      changed = true
    }
  }
  if (!changed) return undefined
  return {
    ...(Object.keys(set).length > 0 ? { set } : {}),
    ...(unset.length > 0 ? { unset } : {}),
    ...(Object.keys(entries).length > 0 ? { entries } : {}),
    ...(Object.keys(drop).length > 0 ? { drop } : {})
  }
}

/**
 * `state` with `patch` applied, as a frozen snapshot that shares what the patch did not touch.
 * The result is not validated here: the caller decodes it if it came from outside.
 */
export const applyStatePatch = (state: SessionState, patch: StatePatch): SessionState => applyStatePatches(state, [patch])

/** A map copied for patching (mutable until the end, then frozen in place by `freezeCopy`). */
interface Copied {
  readonly from: Readonly<Record<string, unknown>>
  readonly map: Record<string, unknown>
  readonly set: Set<string>
  readonly dropped: Set<string>
}

/**
 * `patches` applied in order, as applying them one after the other would give, but each
 * map-valued key copied and frozen once for all of them: a reader catching up on k changes of a
 * state with n children pays one copy of n entries, not k.
 */
export const applyStatePatches = (state: SessionState, patches: ReadonlyArray<StatePatch>): SessionState => {
  if (patches.length === 0) return state
  const out: Record<string, unknown> = { ...state }
  // Maps copied here (mutable until the end), by key.
  const copied = new Map<string, Copied>()
  for (const patch of patches) {
    for (const key of Object.keys(patch.set ?? {})) {
      out[key] = patch.set![key]
      copied.delete(key)
    }
    for (const key of patch.unset ?? []) {
      delete out[key]
      copied.delete(key)
    }
    for (const key of new Set([...Object.keys(patch.entries ?? {}), ...Object.keys(patch.drop ?? {})])) {
      let copy = copied.get(key)
      if (copy === undefined) {
        const base = isMap(out[key]) ? out[key] : {}
        copy = { from: base, map: copyMap(base), set: new Set(), dropped: new Set() }
        copied.set(key, copy)
        out[key] = copy.map
      }
      const entries = patch.entries?.[key]
      if (entries !== undefined) {
        Object.assign(copy.map, entries)
        for (const entry of Object.keys(entries)) copy.set.add(entry)
      }
      for (const entry of patch.drop?.[key] ?? []) {
        delete copy.map[entry]
        copy.dropped.add(entry)
      }
    }
  }
  for (const [key, copy] of copied) out[key] = freezeCopy(copy.from, copy.map, copy.set, copy.dropped)
  return snapshot(out as unknown as SessionState)
}

/** Reads one patch from parsed JSON, or `undefined` when it is not a patch. */
export const decodeStatePatch = (value: unknown): StatePatch | undefined => {
  if (!isMap(value)) return undefined
  const { set, unset, entries, drop } = value
  if (set !== undefined && !isMap(set)) return undefined
  if (unset !== undefined && !(Array.isArray(unset) && unset.every((k) => typeof k === "string"))) return undefined
  if (entries !== undefined && !(isMap(entries) && Object.values(entries).every(isMap))) return undefined
  if (drop !== undefined && !(isMap(drop) && Object.values(drop).every((d) => Array.isArray(d) && d.every((k) => typeof k === "string")))) return undefined
  return value as StatePatch
}
