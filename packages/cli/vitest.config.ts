import { defineProject } from "vitest/config"

export default defineProject({
  ssr: { resolve: { conditions: ["@dsh/source"] } },
  // Every test here starts real `dsh` processes on a shared 2-core machine. A project referenced
  // by directory does not inherit the root config's timeouts, so they are set here.
  test: { name: "cli", include: ["test/**/*.test.ts"], testTimeout: 30_000, hookTimeout: 30_000 }
})
