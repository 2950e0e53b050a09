/**
 * @dsh/subprocess/conformance: `processLauncherSuite(name, layer)`, the vitest suite every
 * `ProcessLauncher` runs. It needs `vitest`, an optional peer dependency; the process checks
 * and child helpers are in `@dsh/subprocess/testing`, which needs no runner.
 */
export * as ProcessLauncherSuite from "./conformance/ProcessLauncherSuite.ts"
