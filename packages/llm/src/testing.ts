/**
 * @dsh/llm/testing: the shared core of the vendor fake servers, and the conformance suite
 * every HTTP model adapter runs against its fake. Most tests want `@dsh/llm-openai/testing`
 * or `@dsh/llm-anthropic/testing`, which build on this. The suite needs vitest and
 * `@effect/vitest` (optional peer dependencies), so importing this entry needs them installed.
 */
export * from "./testing/FakeSseServer.ts"
export * from "./testing/ModelAdapterSuite.ts"
