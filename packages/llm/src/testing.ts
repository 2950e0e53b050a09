/**
 * @dsh/llm/testing: the shared core of the vendor fake servers (a real local SSE server driven
 * by a script), on any test runner: no runner is imported here. Most tests want
 * `@dsh/llm-openai/testing` or `@dsh/llm-anthropic/testing`, which build on this. The vitest
 * conformance suite every HTTP model adapter runs is `@dsh/llm/conformance`.
 */
export * as FakeSseServer from "./testing/FakeSseServer.ts"
