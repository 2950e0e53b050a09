/**
 * @dsh/llm/conformance: `modelAdapterSuite(name, fixture)`, the vitest suite every HTTP model
 * adapter runs against its vendor's fake server. It needs `vitest`, an optional peer
 * dependency; the fake servers are in `@dsh/llm/testing`, which needs no runner.
 */
export * as ModelAdapterSuite from "./conformance/ModelAdapterSuite.ts"
