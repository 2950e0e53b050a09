/**
 * @dsh/session: the persistence seam. `SessionStore` is the service every package talks to;
 * `FileSessionStore` is the default implementation (`$DSH_HOME/sessions/<id>/`). An in-memory
 * store for tests lives in `@dsh/session/testing`.
 */
export * as FileSessionStore from "./FileSessionStore.ts"
export * from "./SessionError.ts"
export * from "./SessionStore.ts"
