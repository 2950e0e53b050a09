import { join } from "node:path"
import { describe, expect, inject, it } from "vitest"
import { must } from "./support.ts"

// examples/ai-sdk-model, installed from the tarballs into the shared app (see setup.ts).
const dir = join(inject("app"), "ai-sdk-model")

describe("examples/ai-sdk-model installed from the tarballs", () => {
  it("type-checks against the published declarations", () => {
    must("npx", ["tsc", "-p", "tsconfig.json"], dir)
  })

  it("runs a main agent and an in-process child on @ai-sdk/openai-compatible against a local mock", () => {
    const out = must("node", ["src/main.ts"], dir)
    expect(out).toContain("My researcher says: the answer is 42.")
    expect(out).toContain("model requests: 3")
  })

  it("its own vitest test swaps the model for MockLanguageModelV4", () => {
    const out = must("npx", ["vitest", "run", "--reporter=verbose"], dir)
    expect(out).toContain("MockLanguageModelV4")
    expect(out).not.toMatch(/failed/i)
  })
})
