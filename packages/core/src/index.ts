/**
 * @dsh/core: the vocabulary every dsh package shares (ids, usage, chat messages,
 * agent events and the named registry). It depends on nothing of ours.
 */
export * as Events from "./Events.ts"
export * as Ids from "./Ids.ts"
export * as ListenAddress from "./ListenAddress.ts"
export * as Messages from "./Messages.ts"
export * as Registry from "./Registry.ts"
export * as Trace from "./Trace.ts"
export * as Usage from "./Usage.ts"
export * as Version from "./Version.ts"
