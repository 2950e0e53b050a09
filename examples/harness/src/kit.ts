// The whole kit on the scripted model: a background child announced before the lead's next
// model call, `wait`, `send_message` to a finished child, a fork, and a stop that reaches a
// grandchild. Run: node src/kit.ts
import { AgentCatalog, AgentHost } from "@dsh/agent"
import type { Events } from "@dsh/core"
import { Harness } from "@dsh/harness"
import { ModelRegistry } from "@dsh/llm"
import { ScriptedAdapter } from "@dsh/llm-scripted"
import { FileSessionStore } from "@dsh/session"
import { Limits } from "@dsh/subagent"
import { ForkProvider, SpawnProvider } from "@dsh/subagent-inprocess"
import { Effect, Layer } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { agent } from "./agents.ts"
import { kitScript } from "./kit-script.ts"

const catalog = AgentCatalog.staticCatalog({
  main: agent("lead", "You are the lead."),
  delegates: [agent("researcher", "You research one topic."), agent("manager", "You manage a deep dive.", ["researcher"])]
})

const host = Harness.layer({ agents: () => Effect.succeed(catalog), backends: [SpawnProvider.SpawnProvider, ForkProvider.ForkBackend], model: "scripted:kit" }).pipe(
  Layer.provide(Layer.mergeAll(
    FileSessionStore.layer({ home: mkdtempSync(join(tmpdir(), "dsh-kit-")) }),
    ModelRegistry.layerWith([ScriptedAdapter.make({ scripts: { kit: kitScript } })]),
    // Children may delegate once more: the manager's researcher is a grandchild.
    Layer.succeed(Limits.SubagentLimits, { ...Limits.defaultLimits, maxDepth: 2 })
  ))
)

const program = Effect.gen(function*() {
  const dsh = yield* AgentHost.AgentHost
  const { id } = yield* dsh.createSession({ cwd: process.cwd() })
  // When the grandchild starts, stop its parent: the stop reaches the grandchild as well.
  const onChildEvent = (_handle: string, event: Events.AgentEvent) =>
    event.type === "turn-start" && event.prompt === "HANG"
      ? Effect.forkDetach(dsh.stopChild({ sessionId: id, handle: "manager-1" }))
      : Effect.void
  for (const prompt of ["background", "wait", "follow-up", "fork", "stop"]) {
    const result = yield* dsh.prompt({ sessionId: id, prompt, onChildEvent })
    console.log(`${prompt}: ${result.result}`)
  }
  for (const child of yield* dsh.listChildren(id)) console.log(`${child.name} (depth ${child.depth}, parent ${child.parent}): ${child.status}`)
})

Effect.runPromise(program.pipe(Effect.provide(host)))
