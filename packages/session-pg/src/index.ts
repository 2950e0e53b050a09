/**
 * @dsh/session-pg: dsh's `SessionStore` in PostgreSQL (`PgSessionStore`), and `storeLayer`, which
 * picks the file store or this one from a store setting (a directory or a `postgres://` URL).
 */
export * as PgSessionStore from "./PgSessionStore.ts"
export * as StoreLayer from "./StoreLayer.ts"
