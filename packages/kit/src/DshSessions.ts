import { AgentHost } from "@dsh/agent"
import { Effect } from "effect"

/** A session as `dsh sessions list` shows it; one that cannot be read has its `reason`. */
export interface SessionRow {
  readonly id: string
  readonly agent: string
  readonly createdAt: string
  readonly updatedAt: string
  readonly status: string
  /** Why the session cannot be read (a corrupt or missing state.json); then the other fields may be empty. */
  readonly reason?: string
  /** `reason` under its name before the field was added. */
  readonly error?: string
}

/** The host's sessions, newest first: a session whose process is gone shows `lost`. */
export const list: Effect.Effect<ReadonlyArray<SessionRow>, AgentHost.HostError, AgentHost.AgentHost> = Effect.gen(function*() {
  const sessions = yield* (yield* AgentHost.AgentHost).listSessions
  return sessions.map(({ id, agent, createdAt, updatedAt, status, error }) =>
    error === undefined ? { id, agent, createdAt, updatedAt, status } : { id, agent, createdAt, updatedAt, status, reason: error, error })
})

/** The rows as `dsh sessions list` prints them. */
export const lines = (rows: ReadonlyArray<SessionRow>): ReadonlyArray<string> =>
  rows.length === 0 ? ["no sessions"] : rows.map((s) => s.reason !== undefined ? `${s.id}  ${s.status.padEnd(9)}  ${s.reason}` : `${s.id}  ${s.status.padEnd(9)}  ${s.agent}  ${s.updatedAt}`)
