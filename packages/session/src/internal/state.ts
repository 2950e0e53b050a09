/**
 * Shared by every store: validation of `state.json`, id checks, timestamps and the order
 * `list` and `latest` promise, so the file and memory stores cannot drift apart.
 */
import { Ids } from "@dsh/core"
import { Clock, Effect, Result, Schema } from "effect"
import { SessionError } from "../SessionError.ts"
import type { CreateSession, SessionState } from "../SessionStore.ts"

/** The keys every store relies on; any other top-level key belongs to some package and is kept. */
const SessionStateSchema = Schema.StructWithRest(
  Schema.Struct({
    version: Schema.Literal(1),
    id: Schema.String,
    agent: Schema.String,
    cwd: Schema.String,
    model: Schema.String,
    createdAt: Schema.String,
    updatedAt: Schema.String,
    status: Schema.Literals(["idle", "running", "completed", "failed", "cancelled"])
  }),
  [Schema.Record(Schema.String, Schema.Unknown)]
)

const decode = Schema.decodeUnknownResult(SessionStateSchema)

const corrupt = (id: string, location: string, why: string) =>
  Effect.fail(new SessionError({ reason: "Corrupt", detail: `session "${id}": ${location} is corrupt: ${why}` }))

/** Validates a parsed state; `Corrupt` when it is not a state, or another session's. */
export const decodeState = (json: unknown, id: string, location: string): Effect.Effect<SessionState, SessionError> => {
  const result = decode(json)
  if (Result.isFailure(result)) return corrupt(id, location, result.failure.message)
  if (result.success.id !== id) return corrupt(id, location, `it belongs to session "${result.success.id}"`)
  return Effect.succeed(result.success)
}

/** Parses `state.json` text; `Corrupt` when it is not JSON, not a state, or another session's. */
export const parseState = (text: string, id: string, location: string): Effect.Effect<SessionState, SessionError> => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (cause) {
    return corrupt(id, location, cause instanceof Error ? cause.message : "not JSON")
  }
  return decodeState(json, id, location)
}

/**
 * What a JSON round trip would give (undefined and functions dropped, `toJSON` applied, non-finite
 * numbers as null), deeply frozen — except that frozen parts are shared, not copied. Stores keep
 * and hand out such values: no caller can alias or change what is stored, and an update that
 * spreads the old state into a new one copies only what it changed, not every descriptor in it.
 */
export const snapshot = <A>(value: A): A => toFrozenJson(value) as A

const toFrozenJson = (value: unknown): unknown => {
  if (value === null || typeof value !== "object") {
    return typeof value === "number" && !Number.isFinite(value) ? null : value
  }
  if (Object.isFrozen(value)) return value
  if (Array.isArray(value)) {
    return Object.freeze(value.map((x) => (x === undefined || typeof x === "function" || typeof x === "symbol" ? null : toFrozenJson(x))))
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return toFrozenJson((value as { toJSON: () => unknown }).toJSON())
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[key]
    if (v === undefined || typeof v === "function" || typeof v === "symbol") continue
    out[key] = toFrozenJson(v)
  }
  return Object.freeze(out)
}

/** The `state.json` text a store writes: pretty, because people read it. */
export const encodeJson = (value: unknown): string => JSON.stringify(value, null, 2) + "\n"

export const notFound = (id: string): SessionError =>
  new SessionError({ reason: "NotFound", detail: `unknown session "${id}"` })

/** Fails with `InvalidId` unless `value` is safe as one path segment. */
export const checkId = (kind: string, value: string): Effect.Effect<void, SessionError> =>
  Ids.isSafeId(value)
    ? Effect.void
    : Effect.fail(new SessionError({ reason: "InvalidId", detail: `invalid ${kind} "${value}"` }))

/** Now as an ISO string, from Effect's `Clock` so tests can move time with `TestClock`. */
export const nowIso: Effect.Effect<string> = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

/** The first `state.json` of a new session; the fixed keys win over `extra`. */
export const initialState = (id: string, init: CreateSession, now: string): SessionState => ({
  ...init.extra,
  version: 1,
  id,
  agent: init.agent,
  cwd: init.cwd,
  model: init.model,
  createdAt: now,
  updatedAt: now,
  status: "idle"
})

const byDesc = (a: string, b: string): number => a < b ? 1 : a > b ? -1 : 0

/** `list` order: newest first by `createdAt`, then by id (ids sort by creation time). */
export const newestFirst = (states: ReadonlyArray<SessionState>): Array<SessionState> =>
  [...states].sort((a, b) => byDesc(a.createdAt, b.createdAt) || byDesc(a.id, b.id))

/** `latest`: the most recently updated session, optionally only those in `cwd`. */
export const latestOf = (
  states: ReadonlyArray<SessionState>,
  filter?: { readonly cwd?: string | undefined }
): SessionState | undefined =>
  states
    .filter((s) => filter?.cwd === undefined || s.cwd === filter.cwd)
    .sort((a, b) => byDesc(a.updatedAt, b.updatedAt) || byDesc(a.id, b.id))[0]
