import { join } from "node:path"
import { describe, expect, inject, it } from "vitest"
import { must } from "./support.ts"

// examples/openai-agents, installed from the tarballs into the shared app (see setup.ts).
const dir = join(inject("app"), "openai-agents")

describe("examples/openai-agents installed from the tarballs", () => {
  it("type-checks against the published declarations", () => {
    must("npx", ["tsc", "-p", "tsconfig.json"], dir)
  })

  it("an @openai/agents Agent run with run() gets its child's answer through kit.tools.openaiAgents()", () => {
    const out = must("node", ["main.ts"], dir)
    expect(out).toBe("lead: My researcher says: Paris has 2.1 million people.\nresearcher-1 (researcher): completed\n")
  })
})
