/**
 * @dsh/session: the persistence seam. `SessionStore` is the service every package talks to;
 * `FileSessionStore` is the default implementation (`$DSH_HOME/sessions/<id>/`). An in-memory
 * store for tests lives in `@dsh/session/testing`; `StoreKit` has the shared building blocks of
 * stores, `parseStoreSpec` reads a store setting (a directory or a `postgres://` URL).
 */
export * as FileSessionStore from "./FileSessionStore.ts"
export * from "./SessionError.ts"
export * from "./SessionStore.ts"
export * as StoreKit from "./StoreKit.ts"
export * from "./StoreSpec.ts"
