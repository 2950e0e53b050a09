import { staticCatalog } from "@dsh/agent"
import { type HarnessOptions, makeAgentContext, makeSessionHost } from "@dsh/harness"
import { ModelRegistry } from "@dsh/llm"
import { makeScriptedAdapter } from "@dsh/llm-scripted"
import { MemorySessionStore, SessionStore } from "@dsh/session"
import { defaultLimits, SubagentLimits } from "@dsh/subagent"
import { subagentProviderSuite } from "@dsh/subagent/conformance"
import { conformanceScript, testDefinition } from "@dsh/subagent/testing"
import { SpawnProvider } from "@dsh/subagent-inprocess"
import { Effect, Layer } from "effect"
import { TestRunner } from "effect/cluster"
import { ChildEntityLive, ChildHost, ChildHostError, makeClusterProvider } from "../src/index.ts"

/**
 * The cluster backend through the provider conformance suite, on Effect Cluster's in-memory
 * test runner: the parent's tree and the runner's hosting tree are separate trees over one
 * session, as they are across processes.
 */
const catalog = staticCatalog({ main: testDefinition("main"), delegates: [testDefinition("coder")] })
const limits = Layer.succeed(SubagentLimits, { ...defaultLimits, maxDepth: 2 })

const base = Layer.mergeAll(
  MemorySessionStore.layer,
  ModelRegistry.layerWith([makeScriptedAdapter({ scripts: { conformance: conformanceScript } })]),
  limits,
  TestRunner.layer
)

const build = Effect.gen(function*() {
  const registry = yield* ModelRegistry
  const resolveModel = (spec: string) => registry.resolve(spec, {})
  const cluster = yield* makeClusterProvider()
  const harness: HarnessOptions = { agents: () => Effect.succeed(catalog), backends: [SpawnProvider, cluster], delegatesRunOn: "cluster" }
  const host = yield* makeSessionHost(harness)
  yield* Layer.build(ChildEntityLive.pipe(
    Layer.provide(Layer.succeed(ChildHost, { open: (id, handle) => host.open(id, handle).pipe(Effect.mapError((e) => new ChildHostError({ message: e.message }))) }))
  ))
  const session = yield* (yield* SessionStore).create({ agent: "main", cwd: "/tmp", model: "scripted:conformance" })
  const { subagents, parent } = yield* makeAgentContext({
    catalog,
    backends: [SpawnProvider, cluster],
    delegatesRunOn: "cluster",
    model: yield* resolveModel("scripted:conformance"),
    session,
    cwd: "/tmp",
    limits: { maxDepth: 2 },
    admission: "session",
    resolveModel
  })
  return { subagents, parent, agentType: "coder" }
})

// The cluster lives as long as the check's scope (providing the layer to `build` would end it with `build`).
const env = Effect.flatMap(Layer.build(base), (context) => Effect.provide(build, context))

subagentProviderSuite("cluster (test runner)", env, { continue: true, messages: true, report: true, nesting: true })
