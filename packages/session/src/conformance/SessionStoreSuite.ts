/**
 * The behaviour every `SessionStore` must show, written once and run against each store
 * (the file store, the memory store, and any store a user writes). It registers vitest tests;
 * the fixture type and the sample data it uses are in `@dsh/session/testing` (no runner needed).
 * The tests themselves live in `suite/`, one module per area.
 */
import { describe } from "vitest"
import type { Effect, Scope } from "effect"
import type { SessionStoreFixture } from "../testing/Samples.ts"
import { archiveTests, childTests } from "./suite/Children.ts"
import { ownershipTests } from "./suite/Ownership.ts"
import { sessionLifecycleTests, sessionRegistryTests } from "./suite/Sessions.ts"
import { transcriptTests } from "./suite/Transcripts.ts"

/**
 * Registers the store conformance tests under `describe(name)`. Call it once, at the top
 * level of a vitest file: `sessionStoreSuite("MyStore", fixture)`. `fixture` runs once per
 * test, in the test's scope, and must make fresh, empty backing data each time.
 *
 * Gotcha: the tests run under `effectTests(it).effect` (the TestClock), so `Clock` is the `TestClock`: a store must take
 * its timestamps from Effect's `Clock` (not `Date.now()`) for the ordering tests to pass.
 */
export const sessionStoreSuite = (name: string, fixture: Effect.Effect<SessionStoreFixture, unknown, Scope.Scope>): void => {
  describe(name, () => {
    sessionLifecycleTests(fixture)
    transcriptTests(fixture)
    sessionRegistryTests(fixture)
    childTests(fixture)
    archiveTests(fixture)
    ownershipTests(fixture)
  })
}
