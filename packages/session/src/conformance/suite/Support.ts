/** What the store conformance modules share: the test runner, the fixture type and small helpers. */
import type { Events } from "@dsh/core"
import { effectTests } from "@dsh/core/testing"
import { it } from "vitest"
import { Effect, type Scope } from "effect"
import type { SessionError } from "../../SessionError.ts"
import type { ChildStore, SessionHandle, SessionState, SessionStoreShape, Transcript } from "../../SessionStore.ts"
import { sampleSession, type SessionStoreFixture, sampleTurnEvents } from "../../testing/Samples.ts"

export const test = effectTests(it)

/** How each suite module receives the store under test: run once per test, in its scope. */
export type Fixture = Effect.Effect<SessionStoreFixture, unknown, Scope.Scope>

export const init = sampleSession

export const counterOf = (state: SessionState): number => typeof state["counter"] === "number" ? state["counter"] : 0

export const appendAll = (transcript: Transcript, events: ReadonlyArray<Events.AgentEvent>) =>
  Effect.forEach(events, (e) => transcript.append(e), { discard: true })

/** Appends `events` and syncs them, so that a restarted store (another process) sees them. */
export const appendSynced = (transcript: Transcript, events: ReadonlyArray<Events.AgentEvent>) =>
  Effect.andThen(appendAll(transcript, events), transcript.sync)

/** Arrange step of the child tests: a new session `id` whose child `name` holds `events`, synced. */
export const sessionWithChild = (
  store: SessionStoreShape,
  id: string,
  name: string,
  events: ReadonlyArray<Events.AgentEvent>
): Effect.Effect<{ readonly handle: SessionHandle; readonly child: ChildStore }, SessionError> =>
  Effect.gen(function*() {
    const handle = yield* store.create({ ...init, id })
    const child = yield* handle.child(name)
    yield* appendSynced(child.transcript, events)
    return { handle, child }
  })

export const seqs = (n: number, from = 1): Array<number> => Array.from({ length: n }, (_, i) => from + i)

/** `n` turns of sample events: enough text for compression to show. */
export const manyTurns = (n: number): ReadonlyArray<Events.AgentEvent> => Array.from({ length: n }, (_, i) => sampleTurnEvents(i + 1)).flat()
