/**
 * @dsh/subagent-acp/testing: a fake vendor ACP agent (a real process built with the ACP SDK)
 * for tests of harnesses that run ACP children.
 */
export * as FakeAcpAgent from "./testing/FakeAcpAgent.ts"
