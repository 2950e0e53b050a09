import { staticCatalog } from "@dsh/agent"
import { makeAgentContext, makeSessionHost } from "@dsh/harness"
import { ModelRegistry } from "@dsh/llm"
import { makeScriptedAdapter } from "@dsh/llm-scripted"
import { MemorySessionStore, SessionStore } from "@dsh/session"
import { ChildEntityLive, ChildHost, ChildHostError, makeClusterProvider } from "@dsh/subagent-cluster"
import { SpawnProvider } from "@dsh/subagent-inprocess"
import { Effect, Layer } from "effect"
import { TestRunner } from "effect/cluster"

const agent = (name: string, systemPrompt: string) => ({ name, description: name, systemPrompt, override: false, scope: "builtin", source: "example" }) as const
const catalog = staticCatalog({ main: agent("lead", "You lead."), delegates: [agent("explore", "You explore.")] })
const models = ModelRegistry.layerWith([makeScriptedAdapter({ scripts: { demo: { rules: [{ reply: { text: "It is dsh.toml." } }] } } })])

const program = Effect.gen(function*() {
  const registry = yield* ModelRegistry
  const resolveModel = (spec: string) => registry.resolve(spec, {})
  // The parent's backend: every run of a child is a persisted message to the child's entity.
  const cluster = yield* makeClusterProvider()
  // The runner's side: it hosts the session's children with the same harness description.
  const host = yield* makeSessionHost({ agents: () => Effect.succeed(catalog), backends: [SpawnProvider, cluster], delegatesRunOn: "cluster" })
  yield* Layer.build(ChildEntityLive.pipe(Layer.provide(Layer.succeed(ChildHost, {
    open: (sessionId, handle) => host.open(sessionId, handle).pipe(Effect.mapError((e) => new ChildHostError({ message: e.message })))
  }))))
  const session = yield* (yield* SessionStore).create({ agent: "lead", cwd: process.cwd(), model: "scripted:demo" })
  const { subagents, parent } = yield* makeAgentContext({
    catalog,
    backends: [SpawnProvider, cluster],
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
