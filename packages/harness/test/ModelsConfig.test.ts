import { assert, describe, it } from "@effect/vitest"
import type { AgentDefinition } from "@dsh/agent"
import type { ResolveAgents } from "@dsh/agent-files"
import { LanguageModel, ModelRegistry } from "@dsh/llm"
import { Effect, Stream } from "effect"
import { AgentListing, HarnessConfig, ModelsConfig } from "../src/index.ts"

/** Two adapters as the vendor packages describe themselves (no network: nothing is created here). */
const adapter = (name: string, extra: Partial<ModelRegistry.ModelAdapter> = {}): ModelRegistry.ModelAdapter => ({
  name,
  description: name,
  create: (model) => Effect.succeed(LanguageModel.make({ provider: name, model, stream: () => Stream.empty })),
  ...extra
})
const registryWith = (aliases: Readonly<Record<string, string>>) =>
  Effect.gen(function*() {
    const registry = yield* ModelRegistry.makeWith({ aliases })
    yield* registry.adapters.registerPermanent("anthropic", adapter("anthropic", { aliases: { haiku: "anthropic:claude-haiku-4-5" }, modelIds: { match: /^claude-/, describe: "claude-*" } }))
    yield* registry.adapters.registerPermanent("openai", adapter("openai", { modelIds: { match: /^gpt-/, describe: "gpt-*" } }))
    return registry
  })

const decode = (raw: Record<string, unknown>) => HarnessConfig.decodeHarnessConfig(raw, "config.toml")
const errorOf = (raw: Record<string, unknown>) => Effect.map(Effect.flip(decode(raw)), (e) => e.message)

describe("[models], [subagents] model and [pricing] in config.toml", () => {
  it.effect("decodes aliases, the children's model and prices (cache prices optional)", () =>
    Effect.gen(function*() {
      const config = yield* decode({
        models: { fast: "openai:gpt-4.1-mini", sonnet: "anthropic:claude-sonnet-4-6" },
        subagents: { model: "haiku" },
        pricing: { "anthropic:claude-haiku-4-5": { input: 1, output: 5, cache_read: 0.1 }, fast: { input: 0.4, output: 1.6 } }
      })
      assert.deepStrictEqual(config.models, {
        aliases: { fast: "openai:gpt-4.1-mini", sonnet: "anthropic:claude-sonnet-4-6" },
        subagentModel: "haiku",
        pricing: {
          "anthropic:claude-haiku-4-5": { inputPerMillion: 1, outputPerMillion: 5, cacheReadPerMillion: 0.1 },
          fast: { inputPerMillion: 0.4, outputPerMillion: 1.6 }
        }
      })
      // Checked against the models: pricing keys become `adapter:model`, aliases included.
      const checked = yield* ModelsConfig.checkModelsConfig(config.models, yield* registryWith(config.models.aliases), "config.toml")
      assert.strictEqual(checked.pricing("openai:gpt-4.1-mini")?.inputPerMillion, 0.4)
      assert.strictEqual(checked.pricing("anthropic:claude-haiku-4-5")?.cacheReadPerMillion, 0.1)
      assert.isUndefined(checked.pricing("openai:gpt-5"))
      assert.strictEqual(checked.subagentModel, "haiku")
    }))

  it.effect("a bad setting is an error naming the key and what is allowed", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* errorOf({ models: "x" }), "config.toml: [models] must be a table of alias = \"model spec\"")
      assert.match(yield* errorOf({ models: { "a/b": "openai:x" } }), /\[models\] a\/b is not allowed: "a\/b" cannot be an alias/)
      assert.match(yield* errorOf({ models: { inherit: "openai:x" } }), /\[models\] inherit is not allowed/)
      assert.match(yield* errorOf({ models: { fast: 3 } }), /\[models\] fast must be a model spec/)
      assert.match(yield* errorOf({ subagents: { model: "" } }), /\[subagents\] model must be a model spec, an alias or "inherit"/)
      assert.match(yield* errorOf({ subagents: 3 }), /\[subagents\] must be a table/)
      assert.match(yield* errorOf({ pricing: { "openai:x": { input: 1e9, output: 1 } } }), /\[pricing\."openai:x"\] input = 1000000000 is not allowed: it must be a number from 0 to 100000/)
      assert.match(yield* errorOf({ pricing: { "openai:x": { output: 1 } } }), /\[pricing\."openai:x"\] needs both input and output/)
      assert.match(yield* errorOf({ pricing: { "openai:x": 3 } }), /\[pricing\."openai:x"\] must be a table/)
      const check = (models: Record<string, unknown>) =>
        Effect.gen(function*() {
          const config = yield* decode(models)
          return (yield* Effect.flip(ModelsConfig.checkModelsConfig(config.models, yield* registryWith(config.models.aliases), "config.toml"))).message
        })
      assert.match(yield* check({ models: { fast: "gemini-3-pro" } }), /\[models\] fast = "gemini-3-pro" cannot be used: "gemini-3-pro" is not a model dsh can resolve/)
      assert.match(yield* check({ subagents: { model: "nope/x" } }), /\[subagents\] model = "nope\/x" cannot be used: .*no adapter serves provider "nope"/)
      assert.match(yield* check({ pricing: { gemini: { input: 1, output: 1 } } }), /\[pricing\."gemini"\] names no model dsh can resolve/)
      // `inherit` is a valid default for children: the parent's model.
      const inherit = yield* decode({ subagents: { model: "inherit" } })
      assert.strictEqual((yield* ModelsConfig.checkModelsConfig(inherit.models, yield* registryWith({}), "config.toml")).subagentModel, "inherit")
    }))
})

describe("agentListing", () => {
  const definition = (name: string, extra: Partial<AgentDefinition.AgentDefinition> = {}): AgentDefinition.AgentDefinition => ({
    name,
    description: name,
    systemPrompt: "",
    override: false,
    scope: "project",
    source: `/p/${name}.md`,
    ...extra
  })
  const resolved: ResolveAgents.ResolvedAgents = {
    agents: [
      definition("lead", { tools: ["Read", "swarm", "Rea*", "mcp__github"], subagents: ["worker", "fork", "ghost"], model: "fast" }),
      definition("worker", { model: "gemini-3-pro", disallowedTools: ["Bahs"] })
    ],
    skipped: [{ path: "/p/notes.txt", reason: "not an agent file" }],
    shadowed: [{ path: "/u/worker.md", name: "worker", by: "/p/worker.md" }],
    warnings: ["from discovery"],
    projectRoot: "/p",
    projectTrusted: false,
    basePrompts: { builtin: "" }
  }

  it.effect("warns as each profile would when applied: patterns that never match, unknown names, unresolvable models", () =>
    Effect.gen(function*() {
      const registry = yield* registryWith({ fast: "openai:gpt-4.1-mini" })
      const listing = yield* AgentListing.agentListing(resolved, { tools: ["Read", "Bash"], backendTypes: ["fork"], canonicalModel: registry.canonical })
      assert.deepStrictEqual(Object.keys(listing), ["agents", "skipped", "shadowed", "warnings"])
      assert.deepStrictEqual(listing.shadowed, [{ path: "/u/worker.md", name: "worker", by: "/p/worker.md" }])
      const warnings = listing.warnings.join("\n")
      assert.include(warnings, "from discovery")
      assert.match(warnings, /agent "lead" .*Rea\*/)
      assert.match(warnings, /agent "lead" .*mcp__github/)
      assert.match(warnings, /agent "lead" .*subagents: no agent is named "ghost"/)
      // The harness's own tools and backend types are known names.
      assert.notMatch(warnings, /no tool is named "swarm"|no agent is named "(fork|worker)"/)
      assert.match(warnings, /agent "worker" .*no tool is named "Bahs"/)
      assert.match(warnings, /agent "worker" .*model: "gemini-3-pro" is not a model dsh can resolve/)
      assert.notMatch(warnings, /agent "lead" .*model:/)
    }))

  it("the delegation tools follow the harness's switches", () => {
    assert.deepStrictEqual(AgentListing.delegationToolNames({ controlTools: false, createTools: false }), ["subagent", "swarm", "report"])
    assert.include(AgentListing.delegationToolNames(), "send_message")
    assert.include(AgentListing.delegationToolNames(), "create_subagent")
  })
})
