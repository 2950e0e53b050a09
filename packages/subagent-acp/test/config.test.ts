import { describe, expect, it } from "vitest"
import { Effect } from "effect"
import { AcpAgentConfig } from "../src/index.ts"

describe("[acp.agents.*] in config.toml", () => {
  it("reads agents and turns them into acp:<name> types on the acp provider", () => {
    const { agents, warnings } = AcpAgentConfig.acpAgentsFromConfig({
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
    expect(AcpAgentConfig.acpAgentTypes(agents).map((t) => [t.name, t.provider, t.definition.mode])).toEqual([
      ["acp:claude", "acp", "subagent"],
      ["acp:gemini", "acp", "subagent"]
    ])
  })

  it("skips invalid entries with a warning and keeps the rest", () => {
    const { agents, warnings } = AcpAgentConfig.acpAgentsFromConfig({
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
    expect(AcpAgentConfig.acpAgentsFromConfig({}).agents).toEqual([])
    expect(AcpAgentConfig.acpAgentsFromConfig(undefined).agents).toEqual([])
  })

  it("mcp_servers become ACP McpServer definitions: stdio and HTTP", () => {
    const { agents, warnings } = AcpAgentConfig.acpAgentsFromConfig({
      acp: {
        agents: {
          claude: {
            command: "claude-agent-acp",
            mcp_servers: {
              files: { command: "mcp-files", args: ["--root", "/srv"], env: { LOG: "1" } },
              docs: { url: "http://127.0.0.1:8080/mcp", headers: { Authorization: "Bearer t" } }
            }
          }
        }
      }
    })
    expect(warnings).toEqual([])
    expect(agents[0]?.mcpServers).toEqual([
      { name: "files", command: "mcp-files", args: ["--root", "/srv"], env: [{ name: "LOG", value: "1" }] },
      { type: "http", name: "docs", url: "http://127.0.0.1:8080/mcp", headers: [{ name: "Authorization", value: "Bearer t" }] }
    ])
  })

  it("decodeAcpAgents refuses the first invalid entry, naming its key; the listing keeps every entry with its status", () => {
    const raw = { acp: { agents: { ok: { command: "x" }, slow: { command: "y", initialize_timeout_seconds: -1 }, mcp: { command: "z", mcp_servers: { s: { args: [] } } } } } }
    const error = Effect.runSync(Effect.flip(AcpAgentConfig.decodeAcpAgents(raw, "/home/u/.dsh/config.toml")))
    expect(error.key).toBe("[acp.agents.slow]")
    expect(error.message).toBe("/home/u/.dsh/config.toml: [acp.agents.slow] \"initialize_timeout_seconds\" = -1 is not allowed: it must be a number of seconds above 0, at most 3600")
    expect(AcpAgentConfig.acpAgentEntries(raw).map((e) => [e.name, e.command, e.status, e.status === "invalid" ? e.key : ""])).toEqual([
      ["ok", "x", "ok", ""],
      ["slow", "y", "invalid", "[acp.agents.slow]"],
      ["mcp", "z", "invalid", "[acp.agents.mcp.mcp_servers.s]"]
    ])
    expect(Effect.runSync(AcpAgentConfig.decodeAcpAgents({ acp: { agents: { ok: { command: "x" } } } }, "c")).map((a) => a.name)).toEqual(["ok"])
  })
})
