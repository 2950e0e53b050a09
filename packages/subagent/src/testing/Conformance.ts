import { Deferred, Effect, Fiber } from "effect"
import type { SubagentsShape } from "../Subagents.ts"
import type { ParentInfo, SubagentResult } from "../Vocabulary.ts"

/** The prompts the conformance checks send; a backend's child must react to them as named. */
export const CONFORMANCE_PROMPTS = {
  echo: (token: string) => `CONFORMANCE echo ${token}`,
  hang: "CONFORMANCE hang",
  fail: "CONFORMANCE fail"
} as const

/**
 * A scripted-model script (the `@dsh/llm-scripted` format) under which any dsh child
 * satisfies the checks: it echoes tokens, hangs, or fails as asked.
 */
export const conformanceScript = {
  name: "conformance",
  rules: [
    { when: { lastUser: "^CONFORMANCE echo (\\S+)" }, reply: { text: "echo {{1}}", usage: { input: 10, output: 3 } } },
    { when: { lastUser: "^CONFORMANCE hang" }, reply: { text: "", hang: true } },
    { when: { lastUser: "^CONFORMANCE fail" }, reply: { error: { reason: "ServerError", detail: "scripted failure" } } }
  ]
} as const

/** What a backend's test provides to the checks: a context whose `agentType` runs on that backend. */
export interface ConformanceEnv {
  readonly subagents: SubagentsShape
  readonly parent: ParentInfo
  readonly agentType: string
}

export interface ConformanceCheck {
  readonly name: string
  readonly run: (env: ConformanceEnv) => Effect.Effect<void, string>
}

const expect = (condition: boolean, message: string): Effect.Effect<void, string> =>
  condition ? Effect.void : Effect.fail(message)

const spawn = (env: ConformanceEnv, prompt: string, timeoutSeconds?: number) =>
  env.subagents.spawn({ prompt, description: "conformance", agent: env.agentType, timeoutSeconds }, env.parent).pipe(
    Effect.mapError((e) => `spawn refused: ${e.message}`)
  )

const descriptorStatus = (env: ConformanceEnv, r: SubagentResult) => env.subagents.tree.descriptors.get(r.handle)?.status

/** The behaviours every backend must show, whatever runs the child. */
export const conformanceChecks: ReadonlyArray<ConformanceCheck> = [
  {
    name: "returns the child's final text with status, usage and handle",
    run: (env) =>
      Effect.gen(function*() {
        const r = yield* spawn(env, CONFORMANCE_PROMPTS.echo("tok-1"))
        yield* expect(r.status === "completed", `status ${r.status} (${r.notes ?? ""})`)
        yield* expect(r.output.includes("echo tok-1"), `output was ${JSON.stringify(r.output)}`)
        yield* expect(r.usage.totalTokens > 0, "no usage reported")
        yield* expect(r.handle !== "" && descriptorStatus(env, r) === "completed", `descriptor ${descriptorStatus(env, r)}`)
      })
  },
  {
    name: "gives every child a distinct handle",
    run: (env) =>
      Effect.gen(function*() {
        const [a, b] = yield* Effect.all([spawn(env, CONFORMANCE_PROMPTS.echo("a")), spawn(env, CONFORMANCE_PROMPTS.echo("b"))], {
          concurrency: 2
        })
        yield* expect(a.handle !== b.handle, `both children were ${a.handle}`)
        yield* expect(a.output.includes("echo a") && b.output.includes("echo b"), "results were mixed up")
      })
  },
  {
    name: "a failing child is a failed result with notes and a handle, not an error",
    run: (env) =>
      Effect.gen(function*() {
        const r = yield* spawn(env, CONFORMANCE_PROMPTS.fail)
        yield* expect(r.status === "failed", `status ${r.status}`)
        yield* expect((r.notes ?? "") !== "", "no notes on a failure")
        yield* expect(r.handle !== "", "no handle on a failure")
      })
  },
  {
    name: "a child past its timeout ends as timeout",
    run: (env) =>
      Effect.gen(function*() {
        const r = yield* spawn(env, CONFORMANCE_PROMPTS.hang, 0.5)
        yield* expect(r.status === "timeout", `status ${r.status}`)
        yield* expect(descriptorStatus(env, r) === "timeout", `descriptor ${descriptorStatus(env, r)}`)
      })
  },
  {
    name: "interrupting the parent cancels the child and records it",
    run: (env) =>
      Effect.gen(function*() {
        const before = new Set(env.subagents.tree.descriptors.all().map((d) => d.handle))
        const started = yield* Deferred.make<void>()
        const parent: ParentInfo = {
          ...env.parent,
          onEvent: (event) =>
            Effect.andThen(env.parent.onEvent?.(event) ?? Effect.void, event.type === "subagent-start" ? Deferred.succeed(started, undefined) : Effect.void)
        }
        const fiber = yield* Effect.forkChild(spawn({ ...env, parent }, CONFORMANCE_PROMPTS.hang, 60))
        yield* Deferred.await(started)
        yield* Fiber.interrupt(fiber)
        const mine = env.subagents.tree.descriptors.all().filter((d) => !before.has(d.handle))
        yield* expect(mine.length === 1 && mine[0]?.status === "cancelled", `descriptors: ${JSON.stringify(mine.map((d) => d.status))}`)
      })
  }
]
