import { defineProject } from "vitest/config"
import { patient } from "../vitest.shared.ts"

export default defineProject({
  test: { ...patient, name: "scripts", include: ["test/**/*.test.ts"] }
})
