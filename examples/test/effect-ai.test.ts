import { join } from "node:path"
import { describe, expect, inject, it } from "vitest"
import { must } from "./support.ts"

// examples/effect-ai, installed from the tarballs into the shared app (see setup.ts).
const dir = join(inject("app"), "effect-ai")

describe("examples/effect-ai installed from the tarballs", () => {
  it("type-checks against the published declarations", () => {
    must("npx", ["tsc", "-p", "tsconfig.json"], dir)
  })

  it("an effect/ai Chat with kit.tools.effectAi()'s Toolkit gets its child's answer", () => {
    const out = must("node", ["main.ts"], dir)
    expect(out).toBe(
      "tool subagent: [reviewer-1 · completed] Two issues: a missing null check, and no test.\n" +
        "chat: The reviewer found: Two issues: a missing null check, and no test.\n"
    )
  })
})
