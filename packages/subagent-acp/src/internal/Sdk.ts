import type * as Acp from "@agentclientprotocol/sdk/unstable"
import { Effect } from "effect"

export type AcpSdk = typeof Acp

// The ACP SDK builds hundreds of zod schemas when it is imported. It is loaded when the first
// ACP child starts, so a harness that merely offers `acp:*` types does not pay for it.
let loading: Promise<AcpSdk> | undefined

export const loadAcpSdk: Effect.Effect<AcpSdk> = Effect.promise(() => (loading ??= import("@agentclientprotocol/sdk/unstable")))
