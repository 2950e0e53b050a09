import { connect, type SdkClient as SdkClientShape } from "./SdkClient.ts"
import { attach, spawn } from "./SpawnSdk.ts"

/** A connected client (the handshake is done). */
export type SdkClient = SdkClientShape

/**
 * The Effect client: `SdkClient.connect({input, output})` over any stream pair, or
 * `SdkClient.spawn({command, args, env})` to start a server through the `ProcessLauncher`, or
 * `SdkClient.attach(child, options)` over a server process the caller started itself. All are
 * scoped and return once the handshake has succeeded.
 */
export const SdkClient = { connect, spawn, attach } as const
