/**
 * @dsh/core: the vocabulary every dsh package shares (ids, usage, chat messages,
 * agent events and the named registry). It depends on nothing of ours.
 */
export * from "./Events.ts"
export * from "./Ids.ts"
export * from "./Messages.ts"
export * from "./Registry.ts"
export * from "./Usage.ts"
export * from "./Version.ts"
export * from "./Trace.ts"
