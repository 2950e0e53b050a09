/**
 * Which entries a frozen map changed from the frozen map it was copied from, for the maps that
 * stores and writers make by changing a few entries of another (a patch applied, a child's
 * record written). With thousands of children, comparing two versions of the children map entry
 * by entry was the largest O(children) cost per change in every process following a session;
 * knowing the entries makes it O(entries changed).
 *
 * A memo of facts about immutable values, like a decode cache, and weak on both ends: it keeps no
 * map alive, and a question about maps it cannot connect (one was collected, or neither was made
 * here) gets `undefined`, so the caller compares entry by entry as before.
 */
import { snapshot } from "./state.ts"

interface Lineage {
  readonly from: WeakRef<object>
  readonly changed: ReadonlyArray<string>
}

const lineage = new WeakMap<object, Lineage>()

/** Past this many copies between two maps, comparing them entry by entry is as cheap. */
const MAX_STEPS = 32

/** Records that frozen `made` is frozen `from` with at most the entries `changed` set or removed. */
export const noteCopied = (made: object, from: object, changed: Iterable<string>): void => {
  if (made !== from && Object.isFrozen(made) && Object.isFrozen(from)) lineage.set(made, { from: new WeakRef(from), changed: [...changed] })
}

/**
 * The entries that may differ between `from` and `to` (a superset of those that do), when `to`
 * was made from `from` by copies this module saw; `undefined` when it cannot tell.
 */
export const changedBetween = (from: object, to: object): ReadonlySet<string> | undefined => {
  if (from === to) return new Set()
  const keys = new Set<string>()
  let at = to
  for (let step = 0; step < MAX_STEPS; step++) {
    const known = lineage.get(at)
    if (known === undefined) return undefined
    for (const key of known.changed) keys.add(key)
    const before = known.from.deref()
    if (before === undefined) return undefined
    if (before === from) return keys
    at = before
  }
  return undefined
}

/**
 * `copy`, a copy of `from` whose entries `set` were set and `dropped` removed, frozen in place:
 * the entries set are frozen as `snapshot` freezes (one that is `undefined` is removed), the rest
 * are `from`'s, already frozen, so the map is not copied again; it knows what it changed. A copy
 * of a map that was not frozen is snapshotted whole.
 */
export const freezeCopy = (
  from: Readonly<Record<string, unknown>>,
  copy: Record<string, unknown>,
  set: Iterable<string>,
  dropped: Iterable<string> = []
): Readonly<Record<string, unknown>> => {
  if (!Object.isFrozen(from)) return snapshot(copy)
  const setKeys = [...set]
  for (const key of setKeys) {
    if (!Object.prototype.hasOwnProperty.call(copy, key)) continue
    const value = snapshot(copy[key])
    if (value === undefined || typeof value === "function" || typeof value === "symbol") delete copy[key]
    else copy[key] = value
  }
  Object.freeze(copy)
  noteCopied(copy, from, [...setKeys, ...dropped])
  return copy
}

/**
 * A shallow, mutable copy of `map`. A loop over its keys, because past about a thousand entries
 * (a session's children) a map is a hash table, which `Object.assign` and spreading copy two to
 * three times slower (3,000 entries: 0.47 against 1.0 ms), and every change of the state copies it.
 */
export const copyMap = (map: Readonly<Record<string, unknown>>): Record<string, unknown> => {
  const copy: Record<string, unknown> = {}
  const keys = Object.keys(map)
  for (let i = 0; i < keys.length; i++) copy[keys[i]!] = map[keys[i]!]
  return copy
}

/** `map` with `entries` set, as a frozen copy that shares every other entry and knows what it changed (see `freezeCopy`). */
export const withEntries = (
  map: Readonly<Record<string, unknown>>,
  entries: Readonly<Record<string, unknown>>
): Readonly<Record<string, unknown>> => freezeCopy(map, Object.assign(copyMap(map), entries), Object.keys(entries))
