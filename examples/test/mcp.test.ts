import { join } from "node:path"
import { describe, expect, inject, it } from "vitest"
import { must } from "./support.ts"

// examples/mcp, installed from the tarballs into the shared app (see setup.ts).
const dir = join(inject("app"), "mcp")

describe("examples/mcp installed from the tarballs", () => {
  it("type-checks against the published declarations", () => {
    must("npx", ["tsc", "-p", "tsconfig.json"], dir)
  })

  it("the MCP SDK's client lists dsh mcp's tools over stdio and a subagent call answers", () => {
    const out = must("node", ["main.ts"], dir)
    expect(out).toContain("tools: subagent, send_message, list_agents, wait, stop\n")
    expect(out).toMatch(/^subagent: .*explored: Which files parse JSON\? -> 3 files mention it\./m)
    expect(out).toMatch(/^list_agents: .*explore-1/m)
  })
})
