/**
 * The Effect client, re-exported from the package index as `SdkClient`: `SdkClient.connect({input,
 * output})` over any stream pair, `SdkClient.spawn({command, args, env})` to start a server through
 * the `ProcessLauncher`, or `SdkClient.attach(child, options)` over a server process the caller
 * started itself. All are scoped and return once the handshake has succeeded; `SdkClient.SdkClient`
 * is the connected client.
 */
export {
  type CallOptions,
  connect,
  type ConnectOptions,
  type SdkClient,
  showDuration,
  type StreamOptions
} from "./internal/ClientConnection.ts"
export { attach, type AttachSdkOptions, spawn, type SpawnedSdkClient, type SpawnSdkOptions } from "./internal/ClientSpawn.ts"
