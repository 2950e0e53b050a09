/**
 * @dsh/llm/testing: the shared core of the vendor fake servers, and the conformance suite
 * every HTTP model adapter runs against its fake. Most tests want `@dsh/llm-openai/testing`
 * or `@dsh/llm-anthropic/testing`, which build on this. The suite needs vitest (an optional peer
 * dependency), so importing this entry needs it installed.
 */
export * from "./testing/FakeSseServer.ts"
export * from "./testing/ModelAdapterSuite.ts"
