import { Schema } from "effect"

/**
 * Why an A2A agent could not be used or could not finish: the provider turns each into a
 * `failed` outcome whose notes name the agent and the cause; none reaches the parent as an error.
 * - `Card`: its agent card is missing, unreachable, too large, invalid or names no supported transport;
 * - `Http`: a request failed at the HTTP level (unreachable, a 5xx, a refused connection);
 * - `Rpc`: the agent answered with a JSON-RPC error, or with something that is not A2A;
 * - `Protocol`: the agent's answers contradict the protocol (a task of another context).
 */
export class A2aChildError extends Schema.TaggedError<A2aChildError>()("A2aChildError", {
  reason: Schema.Literals(["Card", "Http", "Rpc", "Protocol"]),
  message: Schema.String
}) {}
