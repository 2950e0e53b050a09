/**
 * @dsh/llm-openai/testing: a real local server that speaks streaming Chat Completions
 * from a script, for tests of anything that talks to the `openai` adapter.
 */
export * as FakeOpenAIServer from "./testing/FakeOpenAIServer.ts"
