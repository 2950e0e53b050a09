/**
 * @dsh/sdk: the dsh SDK protocol (JSON-RPC 2.0 over LF-delimited stdio frames, see PROTOCOL.md)
 * and both of its ends: `serveSdk` (what `dsh sdk` runs) and the client, Effect-based
 * (`SdkClient.connect` / `SdkClient.spawn`) or Promise-based (`createSdkClient`).
 */
export * as EventSchema from "./EventSchema.ts"
export * as Framing from "./Framing.ts"
export * as Methods from "./Methods.ts"
export * as PromiseClient from "./PromiseClient.ts"
export * as Protocol from "./Protocol.ts"
export * as SdkClient from "./SdkClient.ts"
export * as SdkError from "./SdkError.ts"
export * as SdkServer from "./SdkServer.ts"
export { createSdkClient } from "./PromiseClient.ts"
