/**
 * @dsh/llm-anthropic/testing: a real local server that speaks the streaming Messages API
 * from a script, for tests of anything that talks to the `anthropic` adapter.
 */
export * as FakeAnthropicServer from "./testing/FakeAnthropicServer.ts"
