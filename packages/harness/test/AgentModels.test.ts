import { describe, expect, it } from "vitest"
import { Effect } from "effect"
import { Harness, HarnessConfig } from "../src/index.ts"

// Seed: openclaw-sub-agents, "认证": an agent's own auth, the main profile merged in as the fallback.
describe("[agents.<name>] model profiles", () => {
  const main = { env: { OPENAI_API_KEY: "sk-main", REVIEWER_KEY: "sk-reviewer", EMPTY: "" }, cwd: "/w" }
  const profiles = { reviewer: { apiKeyEnv: "REVIEWER_KEY", baseUrl: "http://127.0.0.1:1/v1" }, empty: { apiKeyEnv: "EMPTY" } }

  it("lays an agent's key and endpoint over the main settings; others keep the main ones", () => {
    expect(Harness.agentModelConfig(main, profiles, "reviewer")).toEqual({ ...main, apiKey: "sk-reviewer", baseUrl: "http://127.0.0.1:1/v1" })
    expect(Harness.agentModelConfig(main, profiles, "explore")).toBe(main)
    expect(Harness.agentModelConfig(main, profiles, undefined)).toBe(main)
    // An unset or empty variable leaves the main key.
    expect(Harness.agentModelConfig(main, profiles, "empty")).toEqual(main)
  })

  it("are read from config.toml, a bad entry naming its key", async () => {
    const ok = await Effect.runPromise(HarnessConfig.decodeHarnessConfig({ agents: { reviewer: { model: "openai:gpt-4.1", api_key_env: "REVIEWER_KEY" } } }, "config.toml"))
    expect(ok.models.agents).toEqual({ reviewer: { model: "openai:gpt-4.1", apiKeyEnv: "REVIEWER_KEY" } })
    const bad = await Effect.runPromise(Effect.flip(HarnessConfig.decodeHarnessConfig({ agents: { reviewer: { base_url: "ftp://x" } } }, "config.toml")))
    expect(bad.message).toContain("[agents.reviewer] base_url")
  })
})
