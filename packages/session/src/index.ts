/**
 * @dsh/session: the persistence seam. `SessionStore` is the service every package talks to;
 * `FileSessionStore` is the default implementation (`$DSH_HOME/sessions/<id>/`), and
 * `MemorySessionStore` the store of a library or app that persists nothing (and of tests).
 * `StoreKit` has the shared building blocks of stores, `parseStoreSpec` reads a store setting
 * (a directory or a `postgres://` URL).
 */
export * as FileSessionStore from "./FileSessionStore.ts"
export * as MemorySessionStore from "./MemorySessionStore.ts"
export * from "./SessionError.ts"
export * from "./SessionStore.ts"
export * as StoreKit from "./StoreKit.ts"
export * from "./StoreSpec.ts"
export * from "./HomePrivacy.ts"
export * from "./StoreTrouble.ts"
export * from "./StoreChoice.ts"
