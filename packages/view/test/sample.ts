// A real session for the view's tests: the harness with the spawn backend, the Read tool and a
// scripted model, on the file store. The lead delegates to three explorers at once (one fails),
// one in the background, and one explorer delegates once more; a permission decision is recorded
// the way the permission rules record them. Text that must be escaped is in the prompts.
import { AgentCatalog, type AgentDefinition, AgentHost } from "@dsh/agent"
import { Harness } from "@dsh/harness"
import { ModelRegistry } from "@dsh/llm"
import { ScriptedAdapter } from "@dsh/llm-scripted"
import { FileSessionStore, SessionStore } from "@dsh/session"
import { Limits } from "@dsh/subagent"
import { SpawnProvider } from "@dsh/subagent-inprocess"
import { Read } from "@dsh/tools-builtin"
import { Effect, Layer } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"

const agent = (name: string, systemPrompt: string): AgentDefinition.AgentDefinition => ({ name, description: `the ${name}`, systemPrompt, override: false, scope: "runtime", source: "test" })

const subagent = (args: Record<string, unknown>) => ({ name: "subagent", arguments: args })

/** One script plays every agent; rules match the agent by its system prompt. */
export const sampleScript = {
  rules: [
    { when: { system: "^You explore", lastUser: "^FAIL" }, reply: { error: { reason: "BadResponse" as const, detail: "the model said nothing useful" } } },
    { when: { system: "^You explore", lastUser: "^DEEPER", step: 0 }, reply: { toolCalls: [subagent({ agent: "explore", description: "one level down", prompt: "look at notes.md" })] } },
    { when: { system: "^You explore", step: 0 }, reply: { toolCalls: [{ name: "Read", arguments: { path: "notes.md" } }], usage: { input: 120, output: 15 } } },
    { when: { system: "^You explore" }, reply: { text: "notes.md says: <b>ship</b> & \"tell\" nobody", usage: { input: 200, output: 30 } } },
    { when: { system: "^You lead", lastUser: "^explore the notes$", step: 0 }, reply: { toolCalls: [
      subagent({ agent: "explore", description: "read the notes", prompt: "read notes.md <script>alert('x')</script>" }),
      subagent({ agent: "explore", description: "this one fails", prompt: "FAIL on purpose" }),
      subagent({ agent: "explore", description: "go deeper", prompt: "DEEPER please" }),
      subagent({ agent: "explore", description: "in the background", prompt: "background reading", background: true })
    ], usage: { input: 300, output: 40 } } },
    { when: { system: "^You lead" }, reply: { text: "All done.", usage: { input: 400, output: 10 } } }
  ]
}

/** Runs the sample session in `home` (with `cwd` holding notes.md); returns its id. */
export const runSampleSession = (home: string, cwd: string) =>
  Effect.gen(function*() {
    writeFileSync(join(cwd, "notes.md"), "# Notes\nship on Friday\n")
    const host = yield* AgentHost.AgentHost
    const { id } = yield* host.createSession({ cwd })
    const result = yield* host.prompt({ sessionId: id, prompt: "explore the notes" })
    // A decision the permission rules recorded for one of the children.
    const session = yield* (yield* SessionStore.SessionStore).open(id)
    const child = yield* session.child("explore-1")
    yield* child.transcript.append({ type: "permission", id: "call-x", subject: "Bash(rm -rf build)", decision: "denied", via: "rule", rule: "deny: Bash(rm -rf *)" })
    yield* child.transcript.sync
    return { id, result }
  }).pipe(Effect.provide(sampleHarness(home)))

export const sampleHarness = (home: string) =>
  Harness.layer({
    agents: () => Effect.succeed(AgentCatalog.staticCatalog({ main: agent("lead", "You lead."), delegates: [agent("explore", "You explore.")] })),
    backends: [SpawnProvider.SpawnProvider],
    tools: [Read.ReadTool],
    model: "scripted:sample"
  }).pipe(Layer.provideMerge(Layer.mergeAll(
    FileSessionStore.layer({ home }),
    ModelRegistry.layerWith([ScriptedAdapter.make({ scripts: { sample: sampleScript } })]),
    Layer.succeed(Limits.SubagentLimits, { ...Limits.defaultLimits, maxDepth: 2 })
  )))
