import { defineConfig } from "vitest/config"
import projects from "./vitest.workspace.ts"

export default defineConfig({
  test: {
    projects,
    // Subprocess- and server-heavy tests share a 2-core machine; keep the pool small and patient.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000
  }
})
