/**
 * @dsh/subagent/testing: replace the child boundary in tests. The fixture provider answers
 * from a script (results, failures, hangs) with no model and no child at all; the
 * conformance checks are what every backend must pass.
 */
export * from "./testing/Conformance.ts"
export * from "./testing/FixtureProvider.ts"
export * from "./testing/Fixtures.ts"
