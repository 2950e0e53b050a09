import { defineProject } from "vitest/config"

export default defineProject({
  ssr: { resolve: { conditions: ["@dsh/source"] } },
  test: { name: "session-pg", include: ["test/**/*.test.ts"] }
})
