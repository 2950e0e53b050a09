import type { Effect, Scope } from "effect"
import { describe, it } from "vitest"
import { type ConformanceCapabilities, type ConformanceEnv, conformanceTests } from "../testing/Conformance.ts"

/**
 * Registers the provider conformance checks as vitest tests, one per check the backend's
 * capabilities call for: `subagentProviderSuite("spawn", makeEnv, { continue: true, … })`.
 * `env` builds a fresh context for each check (in its own scope, with real time). Other
 * runners use `conformanceTests` from `@dsh/subagent/testing`.
 */
export const subagentProviderSuite = <E>(
  name: string,
  env: Effect.Effect<ConformanceEnv, E, Scope.Scope>,
  capabilities: ConformanceCapabilities = {},
  options: { readonly timeout?: number | undefined } = {}
) =>
  describe(`${name}: subagent provider conformance`, () => {
    for (const test of conformanceTests(env, capabilities)) it(test.name, test.run, options.timeout ?? 30_000)
  })
