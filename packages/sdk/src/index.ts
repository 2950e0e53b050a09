/**
 * @dsh/sdk: the dsh SDK protocol (JSON-RPC 2.0 over LF-delimited stdio frames, see PROTOCOL.md)
 * and both of its ends: `serveSdk` (what `dsh sdk` runs) and the client, Effect-based
 * (`SdkClient.connect` / `SdkClient.spawn`) or Promise-based (`createSdkClient`).
 */
export * from "./EventSchema.ts"
export * from "./Framing.ts"
export * from "./Methods.ts"
export * from "./PromiseClient.ts"
export * from "./Protocol.ts"
export * as SdkClient from "./SdkClient.ts"
export * from "./SdkError.ts"
export * from "./SdkServer.ts"
