// Serving: a dsh agent (a scripted "researcher" here; any model in practice) as an A2A agent
// with @dsh/subagent-a2a/serve. Its card lists its agent types as skills; each A2A contextId is
// one dsh session, recorded under `contextsDir` so a restarted server continues it.
import { AgentCatalog, AgentHost } from "@dsh/agent"
import { Harness } from "@dsh/harness"
import { ModelRegistry } from "@dsh/llm"
import { ScriptedAdapter } from "@dsh/llm-scripted"
import { FileSessionStore } from "@dsh/session"
import { serveA2a } from "@dsh/subagent-a2a/serve"
import { LocalProcessLauncher } from "@dsh/subprocess"
import { Effect, Layer } from "effect"
import { join } from "node:path"

const script = {
  rules: [{ reply: { text: "Findings on {{lastUser|firstLine}}: three sources agree.", usage: { input: 12, output: 8 } } }]
}

const host = (home: string) =>
  Harness.layer({
    agents: () =>
      Effect.succeed(AgentCatalog.staticCatalog({
        main: { name: "researcher", description: "researches a question", systemPrompt: "You research.", override: false, scope: "runtime", source: "example" },
        delegates: [{ name: "fact-check", description: "checks one claim", systemPrompt: "You check claims.", override: false, scope: "runtime", source: "example" }]
      })),
    backends: [],
    model: "scripted:researcher"
  }).pipe(Layer.provide(Layer.mergeAll(
    FileSessionStore.layer({ home }),
    ModelRegistry.layerWith([ScriptedAdapter.make({ scripts: { researcher: script } })]),
    LocalProcessLauncher.layer()
  )))

/** Serves the researcher on 127.0.0.1 at a free port until the scope closes; its URL. */
export const serveResearcher = (home: string) =>
  Effect.gen(function*() {
    yield* AgentHost.AgentHost
    return yield* serveA2a({
      host: "127.0.0.1",
      port: 0,
      contextsDir: join(home, "a2a", "contexts"),
      create: { cwd: home },
      name: "researcher",
      description: "A dsh researcher: give it a question, get its findings.",
      skills: [{ name: "fact-check", description: "checks one claim" }]
    })
  }).pipe(Effect.provide(host(home)))
