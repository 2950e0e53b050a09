// Shared set-up for the in-process delegation benchmarks: a real file session store (or the memory one) in a
// temp dir, the spawn backend, the built-in tools and scripted models.
import type { AgentDefinition } from "@dsh/agent"
import type { LanguageModel } from "@dsh/llm"
import { FileSessionStore, MemorySessionStore, SessionStore } from "@dsh/session"
import { type Limits, Subagents, SubagentTree } from "@dsh/subagent"
import { LocalProcessLauncher } from "@dsh/subprocess"
import { BuiltinTools } from "@dsh/tools-builtin"
import { Effect, Layer } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SpawnProvider } from "../../src/index.ts"

export const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN
export const percentile = (xs: ReadonlyArray<number>, p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? Number.NaN

const coder: AgentDefinition.AgentDefinition = {
  name: "coder",
  description: "writes code",
  systemPrompt: "You are a coder. Your last message is the complete deliverable.",
  override: false,
  scope: "builtin",
  source: "builtin:coder"
}

export const workspace = () => {
  const cwd = mkdtempSync(join(tmpdir(), "dsh-bench-cwd-"))
  writeFileSync(join(cwd, "notes.txt"), "a line of notes\n".repeat(20))
  return { cwd, home: mkdtempSync(join(tmpdir(), "dsh-bench-home-")) }
}

/** A Subagents context over a fresh persisted session, with `childModel` for every child. */
export const setup = (options: {
  readonly home: string
  readonly cwd: string
  readonly childModel: LanguageModel.LanguageModelShape
  readonly limits?: Limits.SubagentLimitsInput
  /** The file store (default) or the memory store. */
  readonly store?: "file" | "memory"
}) =>
  Effect.gen(function*() {
    // The store lives as long as the caller's scope, as a host's store lives as long as the host:
    // provided only to this set-up, its scope would close here and every append would reopen its file.
    const context = yield* Layer.build(Layer.mergeAll(
      options.store === "memory" ? MemorySessionStore.layer : FileSessionStore.layer({ home: options.home }),
      LocalProcessLauncher.layer()
    ))
    return yield* Effect.provideContext(build(options), context)
  })

const build = (options: Parameters<typeof setup>[0]) =>
  Effect.gen(function*() {
    const store = yield* SessionStore.SessionStore
    const session = yield* store.create({ agent: "agent", cwd: options.cwd, model: "scripted" })
    const tools = yield* BuiltinTools.make
    const tree = yield* SubagentTree.make({
      session,
      limits: options.limits,
      childContext: () => Effect.succeed({ tools, systemPrompt: coder.systemPrompt }),
      resolveModel: () => Effect.succeed(options.childModel)
    })
    const subagents = yield* Subagents.make({ tree, providers: [SpawnProvider.SpawnProvider], types: [{ name: "coder", description: "writes code", provider: "spawn", definition: coder }] })
    return { subagents, tree, session }
  })
