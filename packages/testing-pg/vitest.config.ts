import { defineProject } from "vitest/config"

export default defineProject({
  ssr: { resolve: { conditions: ["@dsh/source"] } },
  test: { name: "testing-pg", include: ["test/**/*.test.ts"] }
})
