import { defineProject } from "vitest/config"

export default defineProject({
  ssr: { resolve: { conditions: ["@dsh/source"] } },
  test: { name: "subagent-cluster", include: ["test/**/*.test.ts"] }
})
