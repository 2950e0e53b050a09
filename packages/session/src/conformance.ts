/**
 * @dsh/session/conformance: `sessionStoreSuite(name, fixture)`, the vitest suite every
 * `SessionStore` runs. It needs `vitest`, an optional peer dependency; the fixture type and the
 * sample data are re-exported from `@dsh/session/testing`, which needs no runner.
 */
export * as Samples from "./testing/Samples.ts"
export * as SessionStoreSuite from "./conformance/SessionStoreSuite.ts"
