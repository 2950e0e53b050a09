import { AgentCatalog } from "@dsh/agent"
import { AgentContext, SessionHost } from "@dsh/harness"
import { ModelRegistry } from "@dsh/llm"
import { ScriptedAdapter } from "@dsh/llm-scripted"
import { MemorySessionStore, SessionStore } from "@dsh/session"
import { ChildHost, ChildRunner, ClusterProvider } from "@dsh/subagent-cluster"
import { SpawnProvider } from "@dsh/subagent-inprocess"
import { Effect, Layer } from "effect"
import { TestRunner } from "effect/cluster"

const agent = (name: string, systemPrompt: string) => ({ name, description: name, systemPrompt, override: false, scope: "builtin", source: "example" }) as const
const catalog = AgentCatalog.staticCatalog({ main: agent("lead", "You lead."), delegates: [agent("explore", "You explore.")] })
const models = ModelRegistry.layerWith([ScriptedAdapter.make({ scripts: { demo: { rules: [{ reply: { text: "It is dsh.toml." } }] } } })])

const program = Effect.gen(function*() {
  const registry = yield* ModelRegistry.ModelRegistry
  const resolveModel = (spec: string) => registry.resolve(spec, {})
  // The parent's backend: every run of a child is a persisted message to the child's entity.
  const cluster = yield* ClusterProvider.make()
  // The runner's side: it hosts the session's children with the same harness description.
  const host = yield* SessionHost.make({ agents: () => Effect.succeed(catalog), backends: [SpawnProvider.SpawnProvider, cluster], delegatesRunOn: "cluster" })
  yield* Layer.build(ChildRunner.ChildEntityLive.pipe(Layer.provide(Layer.succeed(ChildHost.ChildHost, {
    open: (sessionId, handle) => host.open(sessionId, handle).pipe(Effect.mapError((e) => new ChildHost.ChildHostError({ message: e.message })))
  }))))
  const session = yield* (yield* SessionStore.SessionStore).create({ agent: "lead", cwd: process.cwd(), model: "scripted:demo" })
  const { subagents, parent } = yield* AgentContext.make({
    catalog,
    backends: [SpawnProvider.SpawnProvider, cluster],
    delegatesRunOn: "cluster",
    admission: "session",
    model: yield* resolveModel("scripted:demo"),
    session,
    resolveModel
  })
  const result = yield* subagents.spawn({ prompt: "Where is the config?", description: "find config", agent: "explore" }, parent)
  console.log(result.handle, result.provider, result.status, result.output) // explore-1 cluster completed It is dsh.toml.
})

// One process here (Effect Cluster's in-memory runner); `clusterRunnerLayer` and
// `clusterClientLayer` put the same entities on runners over TCP, with PostgreSQL storage.
await Effect.runPromise(Effect.scoped(program).pipe(Effect.provide(Layer.mergeAll(MemorySessionStore.layer, models, TestRunner.layer))))
