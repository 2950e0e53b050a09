import { join } from "node:path"
import { describe, expect, inject, it } from "vitest"
import { must } from "./support.ts"

// examples/ai-sdk-loop, installed from the tarballs into the shared app (see setup.ts).
const dir = join(inject("app"), "ai-sdk-loop")

describe("examples/ai-sdk-loop installed from the tarballs", () => {
  it("type-checks against the published declarations", () => {
    must("npx", ["tsc", "-p", "tsconfig.json"], dir)
  })

  it("an AI SDK ToolLoopAgent delegates through kit.tools.aiSdk(): progress, the child's answer, a background announcement, a typed result", () => {
    const out = must("node", ["main.ts"], dir)
    // The subagent tool's preliminary results reached readUIMessageStream while the child ran.
    expect(out).toContain("progress: researcher-1 is running\n")
    expect(out).toContain("subagent result: [researcher-1 · completed] The answer is 42.\n")
    expect(out).toContain("lead: My researcher says: The answer is 42.\n")
    // The background child's outcome was injected by announcementsStep before the second model call.
    expect(out).toContain("lead: Heard from the background: The build is green: 212 tests passed. (after 2 steps)\n")
    expect(out).toContain("typed: Ada Lovelace, born 1815\n")
  })
})
