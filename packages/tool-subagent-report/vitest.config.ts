import { defineProject } from "vitest/config"

export default defineProject({
  ssr: { resolve: { conditions: ["@dsh/source"] } },
  test: { name: "tool-subagent-report", include: ["test/**/*.test.ts"] }
})
