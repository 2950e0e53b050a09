// Test options every project shares. Projects referenced by directory (`packages/*`) do not
// inherit the root config's `test` options in vitest 5, so each project config spreads these:
// subprocess- and server-heavy tests share a 2-core machine and must be patient.
export const patient = { testTimeout: 30_000, hookTimeout: 30_000 } as const
