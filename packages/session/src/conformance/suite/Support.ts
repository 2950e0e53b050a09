/** What the store conformance modules share: the test runner, the fixture type and small helpers. */
import type { Events } from "@dsh/core"
import { effectTests } from "@dsh/core/testing"
import { it } from "vitest"
import { Effect, type Scope } from "effect"
import type { SessionState, Transcript } from "../../SessionStore.ts"
import { sampleSession, type SessionStoreFixture, sampleTurnEvents } from "../../testing/Samples.ts"

export const test = effectTests(it)

/** How each suite module receives the store under test: run once per test, in its scope. */
export type Fixture = Effect.Effect<SessionStoreFixture, unknown, Scope.Scope>

export const init = sampleSession

export const counterOf = (state: SessionState): number => typeof state["counter"] === "number" ? state["counter"] : 0

export const appendAll = (transcript: Transcript, events: ReadonlyArray<Events.AgentEvent>) =>
  Effect.forEach(events, (e) => transcript.append(e), { discard: true })

export const seqs = (n: number, from = 1): Array<number> => Array.from({ length: n }, (_, i) => from + i)

/** `n` turns of sample events: enough text for compression to show. */
export const manyTurns = (n: number): ReadonlyArray<Events.AgentEvent> => Array.from({ length: n }, (_, i) => sampleTurnEvents(i + 1)).flat()
