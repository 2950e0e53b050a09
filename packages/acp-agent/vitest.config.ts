import { defineProject } from "vitest/config"

export default defineProject({
  ssr: { resolve: { conditions: ["@dsh/source"] } },
  test: { name: "acp-agent", include: ["test/**/*.test.ts"] }
})
