import { defineConfig } from "vitest/config"
import { patient } from "./vitest.shared.ts"
import projects from "./vitest.workspace.ts"

export default defineConfig({
  test: {
    projects,
    // Subprocess- and server-heavy tests share a 2-core machine; keep the pool small and patient
    // (each project spreads `patient` from vitest.shared.ts: directory projects do not inherit these).
    maxWorkers: 2,
    ...patient
  }
})
