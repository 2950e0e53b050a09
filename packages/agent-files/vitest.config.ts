import { defineProject } from "vitest/config"
import { patient } from "../../vitest.shared.ts"

export default defineProject({
  ssr: { resolve: { conditions: ["@dsh/source"] } },
  test: { ...patient, name: "agent-files", include: ["test/**/*.test.ts"] }
})
