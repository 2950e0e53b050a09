import { RequestError } from "@agentclientprotocol/sdk/unstable"
import { Schema } from "effect"

/**
 * Why an ACP request to the served agent was refused or failed. It crosses the protocol as a
 * JSON-RPC error: `SessionNotFound` → -32002, `InvalidParams`/`Busy` → -32602, `Failed` → -32603.
 */
export class AcpServeError extends Schema.TaggedError<AcpServeError>()("AcpServeError", {
  reason: Schema.Literals(["SessionNotFound", "InvalidParams", "Busy", "Failed"]),
  message: Schema.String
}) {}

/** The JSON-RPC error a client receives for a failed request. */
export const toRequestError = (error: AcpServeError): RequestError => {
  switch (error.reason) {
    case "SessionNotFound":
      return new RequestError(-32002, error.message, { reason: error.reason })
    case "InvalidParams":
    case "Busy":
      return new RequestError(-32602, error.message, { reason: error.reason })
    case "Failed":
      return new RequestError(-32603, error.message, { reason: error.reason })
  }
}
