/**
 * Sample data and the fixture shape of the session store conformance suite, free of any test
 * runner: a store's own tests (on node:test, Jest, Bun or vitest) can use them directly.
 */
import type { Events } from "@dsh/core"
import type { Effect, Scope } from "effect"
import type { CreateSession, SessionStoreShape } from "../SessionStore.ts"

/** One test's backing data (a directory, a database, a shared in-memory `Data`) and a way to open stores over it. */
export interface SessionStoreFixture {
  /**
   * A new store over the fixture's backing data; it lives as long as the test's scope.
   * Calling it again is how the suite simulates a process restart, so two stores from one
   * fixture must see each other's synced data, and nothing else.
   */
  readonly start: Effect.Effect<SessionStoreShape, unknown, Scope.Scope>
}

/** The `create` input the suite uses; handy for a store's own extra tests. */
export const sampleSession: CreateSession = { agent: "coder", cwd: "/work/a", model: "scripted" }

/** One scripted turn's persisted events (six of them: the mix the benchmark uses, shortened). */
export const sampleTurnEvents = (turn: number): ReadonlyArray<Events.AgentEvent> => [
  { type: "turn-start", turn, prompt: `prompt ${turn}` },
  { type: "step-start", turn, step: 1 },
  { type: "message", message: { role: "user", content: `prompt ${turn}` } },
  { type: "tool-call", id: `call-${turn}`, name: "Read", input: "{\"path\":\"README.md\"}" },
  { type: "tool-result", id: `call-${turn}`, name: "Read", output: "# dsh", isError: false, durationMs: 3 },
  {
    type: "turn-end",
    turn,
    status: "completed",
    result: "done",
    usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
    durationMs: 40
  }
]
