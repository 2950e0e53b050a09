/**
 * @dsh/subagent/conformance: the provider conformance suite as vitest tests
 * (`subagentProviderSuite`). It needs `vitest`, an optional peer dependency; the checks
 * themselves, the fixtures and the conformance script are in `@dsh/subagent/testing`, which
 * needs no test runner, and are re-exported here so one import serves a vitest file.
 */
export * as Conformance from "./testing/Conformance.ts"
export * as SubagentProviderSuite from "./conformance/SubagentProviderSuite.ts"
