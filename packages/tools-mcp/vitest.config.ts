import { defineProject } from "vitest/config"

export default defineProject({
  ssr: { resolve: { conditions: ["@dsh/source"] } },
  test: { name: "tools-mcp", include: ["test/**/*.test.ts"] }
})
