import { join } from "node:path"
import { describe, expect, inject, it } from "vitest"
import { must } from "./support.ts"

// examples/a2a, installed from the tarballs into the shared app (see setup.ts).
const dir = join(inject("app"), "a2a")

describe("examples/a2a installed from the tarballs", () => {
  it("type-checks against the published declarations (skipLibCheck off)", () => {
    must("npx", ["tsc", "-p", "tsconfig.json"], dir)
  })

  it("delegates to a dsh served over A2A, and continues the same conversation", () => {
    const out = must("node", ["src/main.ts"], dir)
    expect(out).toMatch(/^researcher served over A2A at http:\/\/127\.0\.0\.1:\d+\/$/m)
    expect(out).toContain("a2a:researcher: ok")
    expect(out).toContain("Lead: Findings on tide tables in Lisbon: three sources agree.")
    expect(out).toContain("a2a-researcher-1 (a2a:researcher on a2a): completed, 20 tokens")
    expect(out).toContain("Lead: Findings on then the best month to visit: three sources agree.")
    // Both prompts were one A2A contextId: one dsh session on the researcher's side.
    expect(out).toContain("researcher sessions: 1")
  })
})
