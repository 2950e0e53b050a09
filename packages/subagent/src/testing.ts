/**
 * @dsh/subagent/testing: replace the child boundary in tests, on any test runner (no runner is
 * imported here). The fixture provider answers from a script (results, failures, hangs) with no
 * model and no child at all; the conformance checks are what every backend must pass, as plain
 * Effects (`conformanceChecks`) or runner-neutral tests (`conformanceTests`). The vitest suite
 * that registers them is `@dsh/subagent/conformance`.
 */
export * as Conformance from "./testing/Conformance.ts"
export * as FixtureProvider from "./testing/FixtureProvider.ts"
export * as Fixtures from "./testing/Fixtures.ts"
