/**
 * @dsh/session: the persistence seam. `SessionStore` is the service every package talks to;
 * `FileSessionStore` is the default implementation (`$DSH_HOME/sessions/<id>/`), and
 * `MemorySessionStore` the store of a library or app that persists nothing (and of tests).
 * `StoreKit` has the shared building blocks of stores, `parseStoreSpec` reads a store setting
 * (a directory or a `postgres://` URL).
 */
export * as FileSessionStore from "./FileSessionStore.ts"
export * as HomePrivacy from "./HomePrivacy.ts"
export * as MemorySessionStore from "./MemorySessionStore.ts"
export * as SessionError from "./SessionError.ts"
export * as SessionStore from "./SessionStore.ts"
export * as StoreChoice from "./StoreChoice.ts"
export * as StoreKit from "./StoreKit.ts"
export * as StoreSpec from "./StoreSpec.ts"
export * as StoreTrouble from "./StoreTrouble.ts"
