/**
 * @dsh/llm/testing: the shared core of the vendor fake servers. Most tests want
 * `@dsh/llm-openai/testing` or `@dsh/llm-anthropic/testing`, which build on this.
 */
export * from "./testing/FakeSseServer.ts"
