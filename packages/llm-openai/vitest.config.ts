import { defineProject } from "vitest/config"

export default defineProject({
  ssr: { resolve: { conditions: ["@dsh/source"] } },
  test: { name: "llm-openai", include: ["test/**/*.test.ts"] }
})
