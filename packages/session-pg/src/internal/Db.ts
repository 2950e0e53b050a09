/**
 * What every part of the store shares: the client, where it points (for messages and
 * `location`), the schema it works in, and the mapping of `SqlError`s to `SessionError`s.
 */
import { createHash } from "node:crypto"
import { SessionError } from "@dsh/session"
import type { PgClient } from "@effect/sql-pg"
import { Effect } from "effect"
import { isSqlError, type SqlError } from "effect/sql/SqlError"

export interface Db {
  readonly sql: PgClient.PgClient
  /** `postgres://user@host:port/db`: no password. */
  readonly target: string
  /** `host:port`, for connection errors. */
  readonly address: string
  /** `current_schema()`: the tables' schema; part of every lock key and notification. */
  readonly schema: string
}

const firstLine = (text: string): string => text.split("\n")[0] ?? text

/** The underlying error's message: `connect ECONNREFUSED 127.0.0.1:5999`, `password authentication failed …`. */
export const causeText = (error: SqlError): string => {
  const cause = (error.reason as { readonly cause?: unknown }).cause
  const inner = cause instanceof Error ? cause.message : typeof cause === "string" ? cause : undefined
  return firstLine(inner ?? error.reason.message ?? error.message)
}

/** A `SqlError` as the one-line `SessionError` a CLI prints: `Io`, naming the server and what failed. */
export const toSessionError = (db: Pick<Db, "target" | "address">, what: string) => (error: SqlError): SessionError.SessionError => {
  const why = causeText(error)
  switch (error.reason._tag) {
    case "ConnectionError":
      // What to check goes with it: an operator's first question is whether the URL or the server is wrong.
      return new SessionError.SessionError({ reason: "Io", detail: `cannot reach PostgreSQL at ${db.address}: ${why} (store ${db.target}: check that PostgreSQL runs there and accepts connections, and the URL)` })
    case "AuthenticationError":
    case "AuthorizationError":
      return new SessionError.SessionError({ reason: "Io", detail: `PostgreSQL at ${db.address} refused the login to ${db.target}: ${why}` })
    default:
      return new SessionError.SessionError({ reason: "Io", detail: `${db.target}: ${what} failed: ${why}` })
  }
}

/** Runs a statement (or any effect over the client), its `SqlError`s mapped; other failures pass. */
export const run = <A, E, R>(db: Pick<Db, "target" | "address">, what: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, SqlError> | SessionError.SessionError, R> =>
  Effect.mapError(effect, (e) => (isSqlError(e) ? toSessionError(db, what)(e) : e as Exclude<E, SqlError>))

/**
 * A 64-bit advisory-lock key (as a decimal string, for `$n::bigint`) for `purpose` and `name`
 * in this schema: the first 8 bytes of a SHA-256, so two sessions share a key only by a 2⁻⁶⁴ chance.
 */
export const lockKey = (db: Pick<Db, "schema">, purpose: string, name: string): string =>
  BigInt.asIntN(64, createHash("sha256").update(`dsh\0${purpose}\0${db.schema}\0${name}`).digest().readBigUInt64BE(0)).toString()

/** How `pg_locks` shows a bigint key: its high half in `classid`, its low half in `objid`. */
export const lockKeyHalves = (key: string): { readonly classid: string; readonly objid: string } => {
  const unsigned = BigInt.asUintN(64, BigInt(key))
  return { classid: (unsigned >> 32n).toString(), objid: (unsigned & 0xffffffffn).toString() }
}
