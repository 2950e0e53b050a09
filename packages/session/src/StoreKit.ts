/**
 * Building blocks for `SessionStore` implementations outside this package (`@dsh/session-pg`,
 * your own): the same validation, ids, timestamps and ordering as the file and memory stores, so
 * every store passes `sessionStoreSuite` the same way.
 *
 * @since 0.1.0
 */
export {
  /** Fails `InvalidId` unless the value is safe as an id (`invalid <kind> "<value>"`). */
  checkId,
  /** Validates a parsed state: `Corrupt` when it is not a `SessionState`, or another session's. */
  decodeState,
  /** The first state of a new session (`status: "idle"`, `createdAt === updatedAt`); fixed keys win over `extra`. */
  initialState,
  /** `latest`'s choice: the most recently updated state, optionally in one cwd. */
  latestOf,
  /** `list`'s order: newest first by `createdAt`, then by id. */
  newestFirst,
  /** `NotFound` for an id: `unknown session "<id>"`. */
  notFound,
  /** Now as an ISO string, from Effect's `Clock`. */
  nowIso,
  /**
   * What a JSON round trip would give, deeply frozen, frozen parts shared: what stores keep and
   * hand out. A caller that builds a large part of a state (a map of records) freezes it with its
   * parts, so the store's own snapshot of the new state does not walk it again.
   */
  snapshot
} from "./internal/state.ts"
/** The handles a store hands out, one per session id (racing `open`s agree on the first). */
export { makeHandleCache } from "./internal/handles.ts"
/** A parsed value as a `WireRecord`, or `undefined` when it is not one. */
export { decodeRecord } from "./internal/wire.ts"
/**
 * What changed between two states (top-level keys, and only the changed entries of map-valued
 * keys such as `subagents`), and the same change applied: how a store writes one child's record
 * per update instead of the whole state. A patch holds values, so applying it twice is harmless.
 */
export { applyStatePatch, applyStatePatches, decodeStatePatch, diffState, type StatePatch } from "./internal/statePatch.ts"
/**
 * A frozen map with a few entries set (`withEntries`), and which entries may differ between two
 * maps made that way from one another (`changedBetween`, `undefined` when it cannot tell): how a
 * writer and a follower of a state with thousands of children compare O(changes), not O(children).
 */
export { changedBetween, withEntries } from "./internal/mapLineage.ts"
/** One round at a time of work one caller does for all who wait (a group commit), without a lock's per-waiter cost. */
export { makeRounds, type Rounds } from "./internal/rounds.ts"
