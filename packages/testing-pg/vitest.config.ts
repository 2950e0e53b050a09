import { defineProject } from "vitest/config"

export default defineProject({
  ssr: { resolve: { conditions: ["@dsh/source"] } },
  // A real PostgreSQL per file, and subprocesses: patient on a busy 2-core machine.
  test: { name: "testing-pg", include: ["test/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 60_000 }
})
