import { defineProject } from "vitest/config"

// Only `examples/test`: each example project has tests of its own, which run against the
// packed tarballs inside a temporary install, never against this workspace. The global setup
// packs and installs once per run; every test file gets the installed app with `inject("app")`.
export default defineProject({
  test: {
    name: "examples",
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/setup.ts"],
    testTimeout: 300_000,
    hookTimeout: 600_000
  }
})
