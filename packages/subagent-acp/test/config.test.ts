import { describe, expect, it } from "vitest"
import { acpAgentsFromConfig, acpAgentTypes } from "../src/index.ts"

describe("[acp.agents.*] in config.toml", () => {
  it("reads agents and turns them into acp:<name> types on the acp provider", () => {
    const { agents, warnings } = acpAgentsFromConfig({
      acp: {
        agents: {
          claude: { command: "claude-code-acp", env: ["ANTHROPIC_API_KEY"], description: "Claude Code", cwd: "parent" },
          gemini: { command: "gemini", args: ["--experimental-acp"], env: { GEMINI_MODEL: "pro" }, initialize_timeout_seconds: 30 }
        }
      }
    })
    expect(warnings).toEqual([])
    expect(agents).toMatchObject([
      { name: "claude", command: "claude-code-acp", passEnv: ["ANTHROPIC_API_KEY"], description: "Claude Code", cwd: "parent" },
      { name: "gemini", args: ["--experimental-acp"], env: { GEMINI_MODEL: "pro" }, description: "the ACP agent \"gemini\"" }
    ])
    expect(acpAgentTypes(agents).map((t) => [t.name, t.provider, t.definition.mode])).toEqual([
      ["acp:claude", "acp", "subagent"],
      ["acp:gemini", "acp", "subagent"]
    ])
  })

  it("skips invalid entries with a warning and keeps the rest", () => {
    const { agents, warnings } = acpAgentsFromConfig({
      acp: { agents: { ok: { command: "x" }, nocmd: { args: [] }, "Bad Name": { command: "y" }, badargs: { command: "z", args: "nope" } } }
    })
    expect(agents.map((a) => a.name)).toEqual(["ok"])
    expect(warnings).toEqual([
      "[acp.agents.nocmd]: \"command\" is required",
      "[acp.agents.Bad Name]: the name must be lower-case letters, digits, - or _",
      "[acp.agents.badargs]: \"args\" must be a list of strings"
    ])
  })

  it("no [acp] table means no configured agents", () => {
    expect(acpAgentsFromConfig({}).agents).toEqual([])
    expect(acpAgentsFromConfig(undefined).agents).toEqual([])
  })
})
