import { AgentCatalog } from "@dsh/agent"
import { AgentContext, type HarnessOptions, SessionHost } from "@dsh/harness"
import { ModelRegistry } from "@dsh/llm"
import { ScriptedAdapter } from "@dsh/llm-scripted"
import { MemorySessionStore, SessionStore } from "@dsh/session"
import { Limits } from "@dsh/subagent"
import { SubagentProviderSuite } from "@dsh/subagent/conformance"
import { Conformance, Fixtures } from "@dsh/subagent/testing"
import { SpawnProvider } from "@dsh/subagent-inprocess"
import { Effect, Layer } from "effect"
import { TestRunner } from "effect/cluster"
import { ChildHost, ChildRunner, ClusterProvider } from "../src/index.ts"

/**
 * The cluster backend through the provider conformance suite, on Effect Cluster's in-memory
 * test runner: the parent's tree and the runner's hosting tree are separate trees over one
 * session, as they are across processes.
 */
const catalog = AgentCatalog.staticCatalog({ main: Fixtures.testDefinition("main"), delegates: [Fixtures.testDefinition("coder")] })
const limits = Layer.succeed(Limits.SubagentLimits, { ...Limits.defaultLimits, maxDepth: 2 })

const base = Layer.mergeAll(
  MemorySessionStore.layer,
  ModelRegistry.layerWith([ScriptedAdapter.make({ scripts: { conformance: Conformance.conformanceScript } })]),
  limits,
  TestRunner.layer
)

const build = Effect.gen(function*() {
  const registry = yield* ModelRegistry.ModelRegistry
  const resolveModel = (spec: string) => registry.resolve(spec, {})
  const cluster = yield* ClusterProvider.make()
  const harness: HarnessOptions.HarnessOptions = { agents: () => Effect.succeed(catalog), backends: [SpawnProvider.SpawnProvider, cluster], delegatesRunOn: "cluster" }
  const host = yield* SessionHost.make(harness)
  yield* Layer.build(ChildRunner.ChildEntityLive.pipe(
    Layer.provide(Layer.succeed(ChildHost.ChildHost, { open: (id, handle) => host.open(id, handle).pipe(Effect.mapError((e) => new ChildHost.ChildHostError({ message: e.message }))) }))
  ))
  const session = yield* (yield* SessionStore.SessionStore).create({ agent: "main", cwd: "/tmp", model: "scripted:conformance" })
  const { subagents, parent } = yield* AgentContext.make({
    catalog,
    backends: [SpawnProvider.SpawnProvider, cluster],
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

SubagentProviderSuite.subagentProviderSuite("cluster (test runner)", env, { continue: true, messages: true, report: true, nesting: true })
