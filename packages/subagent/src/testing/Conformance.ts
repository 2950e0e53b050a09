/**
 * The provider conformance checks as plain Effect values, with no test runner: every backend
 * must pass them. `@dsh/subagent/conformance` registers them as vitest tests; on any other
 * runner, loop over `conformanceTests(env, capabilities)`.
 */
import { Deferred, Effect, Fiber, Schedule, type Scope } from "effect"
import type { SubagentDescriptor, SubagentResult } from "../Records.ts"
import type { SubagentsShape } from "../Subagents.ts"
import type { ParentInfo } from "../Vocabulary.ts"

/** The prompts the conformance checks send; a backend's child must react to them as named. */
export const CONFORMANCE_PROMPTS = {
  echo: (token: string) => `CONFORMANCE echo ${token}`,
  hang: "CONFORMANCE hang",
  fail: "CONFORMANCE fail",
  crash: "CONFORMANCE crash",
  recall: "CONFORMANCE recall",
  slow: "CONFORMANCE slow",
  report: (token: string) => `CONFORMANCE report ${token}`,
  nest: "CONFORMANCE nest",
  partial: "CONFORMANCE partial"
} as const

/**
 * A scripted-model script (the `@dsh/llm-scripted` format) under which any model-driven dsh
 * child satisfies the checks: it echoes tokens, hangs, fails, recalls its earlier tasks, answers
 * slowly, reports through `report`, delegates a hanging grandchild, or says something, spends
 * tokens and then waits on a model that never answers (`partial`: a call to a tool no child
 * has, then a hanging step), as asked.
 */
export const conformanceScript = {
  name: "conformance",
  rules: [
    { when: { lastUser: "^CONFORMANCE echo (\\S+)" }, reply: { text: "echo {{1}}", usage: { input: 10, output: 3 } } },
    { when: { lastUser: "^CONFORMANCE hang" }, reply: { text: "", hang: true } },
    { when: { lastUser: "^CONFORMANCE fail" }, reply: { error: { reason: "ServerError", detail: "scripted failure" } } },
    { when: { lastUser: "^CONFORMANCE crash" }, reply: { error: { reason: "BadResponse", detail: "scripted crash: the answer could not be read" } } },
    { when: { lastUser: "^CONFORMANCE recall" }, reply: { text: "recall: {{users}}", usage: { input: 10, output: 3 } } },
    { when: { lastUser: "^CONFORMANCE slow" }, reply: { text: "slow done", delayMs: 1500, usage: { input: 10, output: 2 } } },
    { when: { lastUser: "^CONFORMANCE report (\\S+)", step: 0, hasTool: "report" }, reply: { toolCalls: [{ name: "report", arguments: { result: "reported {{1}}" } }] } },
    { when: { lastUser: "^CONFORMANCE report" }, reply: { text: "after the report", usage: { input: 10, output: 3 } } },
    { when: { lastUser: "^CONFORMANCE nest", step: 0, hasTool: "subagent" }, reply: { toolCalls: [{ name: "subagent", arguments: { description: "grandchild", prompt: "CONFORMANCE hang" } }] } },
    { when: { lastUser: "^CONFORMANCE partial", step: 0 }, reply: { text: "partial progress", toolCalls: [{ name: "conformance_wait", arguments: {} }], usage: { input: 10, output: 3 } } },
    { when: { lastUser: "^CONFORMANCE partial" }, reply: { text: "", hang: true } }
  ]
} as const

/** What a backend's test provides to the checks: a context whose `agentType` runs on that backend. */
export interface ConformanceEnv {
  readonly subagents: SubagentsShape
  readonly parent: ParentInfo
  readonly agentType: string
}

/** What the backend under test can do beyond one-shot runs; each adds checks. */
export interface ConformanceCapabilities {
  /** `continue`: a finished child answers a message with its earlier context (`recall`). */
  readonly continue?: boolean | undefined
  /** Messages sent to a running child are delivered to it (the `slow` prompt gives time to send one). */
  readonly messages?: boolean | undefined
  /** Its children have the `report` tool and stay continuable after reporting. */
  readonly report?: boolean | undefined
  /** Its children may delegate (the env's depth limit is at least 2): stop cascades to a grandchild. */
  readonly nesting?: boolean | undefined
  /**
   * Its children record what they say and spend as they go (a transcript in the child's store,
   * `usage` events): a stopped child's result keeps what it said and used so far (`partial`).
   */
  readonly progress?: boolean | undefined
}

export interface ConformanceCheck {
  readonly name: string
  /** The capability the check needs, if any. */
  readonly needs?: keyof ConformanceCapabilities | undefined
  readonly run: (env: ConformanceEnv) => Effect.Effect<void, string>
}

/** A failed expectation says what was expected and what happened. */
const expect = (condition: boolean, expected: string, actual: unknown): Effect.Effect<void, string> =>
  condition ? Effect.void : Effect.fail(`expected ${expected}; got ${typeof actual === "string" ? actual : JSON.stringify(actual)}`)

const spawn = (env: ConformanceEnv, prompt: string, timeoutSeconds?: number) =>
  env.subagents.spawn({ prompt, description: "conformance", agent: env.agentType, timeoutSeconds }, env.parent).pipe(
    Effect.mapError((e) => `the spawn to be accepted; it was refused: ${e.message}`)
  )

const send = (env: ConformanceEnv, handle: string, message: string) =>
  env.subagents.send(handle, message, "user").pipe(Effect.mapError((e) => `the message to ${handle} to be accepted; it was refused: ${e.message}`))

const descriptor = (env: ConformanceEnv, handle: string): SubagentDescriptor | undefined => env.subagents.tree.descriptors.get(handle)

const summary = (r: SubagentResult) => ({ status: r.status, output: r.output, notes: r.notes })

/** The records of a child's transcript so far (its session's store, or the tree's memory stores). */
const transcriptOf = (env: ConformanceEnv, handle: string) => {
  const tree = env.subagents.tree
  const store = tree.session === undefined ? Effect.succeed(tree.memoryStores.get(handle)) : tree.session.child(handle).pipe(Effect.orElseSucceed(() => undefined))
  return Effect.flatMap(store, (s) =>
    s === undefined ? Effect.succeed([]) : s.transcript.read.pipe(Effect.map((r) => r.records), Effect.orElseSucceed(() => [])))
}

/** Forks `spawn` and waits until the child has started (its `subagent-start`). */
const startAndWait = (env: ConformanceEnv, prompt: string) =>
  Effect.gen(function*() {
    const started = yield* Deferred.make<string>()
    const parent: ParentInfo = {
      ...env.parent,
      onEvent: (event) =>
        Effect.andThen(env.parent.onEvent?.(event) ?? Effect.void, event.type === "subagent-start" ? Deferred.succeed(started, event.handle) : Effect.void)
    }
    const fiber = yield* Effect.forkChild(spawn({ ...env, parent }, prompt, 60))
    return { fiber, handle: yield* Deferred.await(started) }
  })

/** The behaviours every backend must show, whatever runs the child. */
export const conformanceChecks: ReadonlyArray<ConformanceCheck> = [
  {
    name: "returns the child's final text with status, usage and handle",
    run: (env) =>
      Effect.gen(function*() {
        const r = yield* spawn(env, CONFORMANCE_PROMPTS.echo("tok-1"))
        yield* expect(r.status === "completed", "status completed", summary(r))
        yield* expect(r.output.includes("echo tok-1"), "the output to contain \"echo tok-1\"", r.output)
        yield* expect(r.usage.totalTokens > 0, "usage above 0 tokens", r.usage)
        yield* expect(r.handle !== "" && descriptor(env, r.handle)?.status === "completed", "a handle whose descriptor is completed", descriptor(env, r.handle))
      })
  },
  {
    name: "gives every child a distinct handle",
    run: (env) =>
      Effect.gen(function*() {
        const [a, b] = yield* Effect.all([spawn(env, CONFORMANCE_PROMPTS.echo("a")), spawn(env, CONFORMANCE_PROMPTS.echo("b"))], { concurrency: 2 })
        yield* expect(a.handle !== b.handle, "two different handles", [a.handle, b.handle])
        yield* expect(a.output.includes("echo a") && b.output.includes("echo b"), "each child's own output", [a.output, b.output])
      })
  },
  {
    name: "a failing child is a failed result with notes and a handle, not an error",
    run: (env) =>
      Effect.gen(function*() {
        const r = yield* spawn(env, CONFORMANCE_PROMPTS.fail)
        yield* expect(r.status === "failed" && (r.notes ?? "") !== "" && r.handle !== "", "status failed with notes and a handle", summary(r))
      })
  },
  {
    name: "a crashing child is a failed result with the reason",
    run: (env) =>
      Effect.gen(function*() {
        const r = yield* spawn(env, CONFORMANCE_PROMPTS.crash)
        yield* expect(r.status === "failed" && (r.notes ?? "") !== "", "status failed with notes", summary(r))
        yield* expect(descriptor(env, r.handle)?.status === "failed", "its descriptor failed", descriptor(env, r.handle)?.status)
      })
  },
  {
    name: "a child past its timeout ends as timeout",
    run: (env) =>
      Effect.gen(function*() {
        const r = yield* spawn(env, CONFORMANCE_PROMPTS.hang, 0.5)
        yield* expect(r.status === "timeout", "status timeout", summary(r))
        yield* expect(descriptor(env, r.handle)?.status === "timeout", "its descriptor timeout", descriptor(env, r.handle)?.status)
      })
  },
  {
    name: "interrupting the parent cancels the child and records it",
    run: (env) =>
      Effect.gen(function*() {
        const { fiber, handle } = yield* startAndWait(env, CONFORMANCE_PROMPTS.hang)
        yield* Fiber.interrupt(fiber)
        yield* expect(descriptor(env, handle)?.status === "cancelled", "its descriptor cancelled", descriptor(env, handle)?.status)
      })
  },
  {
    name: "a stopped child's result keeps what it said and used so far",
    needs: "progress",
    run: (env) =>
      Effect.gen(function*() {
        const { fiber, handle } = yield* startAndWait(env, CONFORMANCE_PROMPTS.partial)
        // It has said something (recorded in its transcript) and waits on its model.
        const said = yield* transcriptOf(env, handle).pipe(
          Effect.map((records) => records.some((r) => r.type === "message" && r.message.role === "assistant" && r.message.content.includes("partial progress"))),
          Effect.repeat({ schedule: Schedule.spaced("20 millis"), until: (found) => found, times: 1000 })
        )
        yield* expect(said, "the child to say \"partial progress\" before it waits", yield* transcriptOf(env, handle))
        yield* env.subagents.stop(handle, env.parent.handle).pipe(Effect.mapError((e) => `the stop to be accepted: ${e.message}`))
        const r = yield* Fiber.join(fiber)
        yield* expect(r.status === "cancelled", "status cancelled", summary(r))
        yield* expect(r.output.includes("partial progress"), "the output so far (\"partial progress\")", summary(r))
        yield* expect(r.usage.totalTokens > 0, "the usage so far above 0 tokens", r.usage)
      })
  },
  {
    name: "a finished child continues with its earlier context",
    needs: "continue",
    run: (env) =>
      Effect.gen(function*() {
        const first = yield* spawn(env, CONFORMANCE_PROMPTS.echo("tok-1"))
        const reply = yield* send(env, first.handle, CONFORMANCE_PROMPTS.recall)
        yield* expect(reply._tag === "Replied", "a reply", reply._tag)
        if (reply._tag !== "Replied") return
        yield* expect(reply.result.status === "completed" && reply.result.handle === first.handle, "the same child, completed", summary(reply.result))
        yield* expect(reply.result.output.includes("tok-1"), "the reply to recall \"tok-1\" from the first task", reply.result.output)
      })
  },
  {
    name: "a message to a running child is queued and delivered to it",
    needs: "messages",
    run: (env) =>
      Effect.gen(function*() {
        const { fiber, handle } = yield* startAndWait(env, CONFORMANCE_PROMPTS.slow)
        const sent = yield* send(env, handle, CONFORMANCE_PROMPTS.echo("queued-1"))
        yield* expect(sent._tag === "Queued", "the message to be queued for the running child", sent._tag)
        const r = yield* Fiber.join(fiber)
        yield* expect(r.status === "completed" && r.output.includes("echo queued-1"), "the child to answer the queued message", summary(r))
      })
  },
  {
    name: "a child that reports hands back its report and stays continuable",
    needs: "report",
    run: (env) =>
      Effect.gen(function*() {
        const r = yield* spawn(env, CONFORMANCE_PROMPTS.report("tok-r"))
        yield* expect(r.status === "completed" && r.output.includes("reported tok-r"), "the reported result", summary(r))
        const again = yield* send(env, r.handle, CONFORMANCE_PROMPTS.recall)
        yield* expect(again._tag === "Replied" && again.result.output.includes("tok-r"), "a continued reply that recalls the task", again)
      })
  },
  {
    name: "stopping a child stops its descendants",
    needs: "nesting",
    run: (env) =>
      Effect.gen(function*() {
        const { fiber, handle } = yield* startAndWait(env, CONFORMANCE_PROMPTS.nest)
        const grandchild = yield* Effect.sync(() => env.subagents.list(handle).find((d) => d.parent === handle && d.status === "running")).pipe(
          Effect.repeat({ schedule: Schedule.spaced("20 millis"), until: (d) => d !== undefined, times: 500 })
        )
        yield* expect(grandchild !== undefined, "the child to start a grandchild", env.subagents.list(handle))
        const stopped = yield* env.subagents.stop(handle, env.parent.handle).pipe(Effect.mapError((e) => `the stop to be accepted: ${e.message}`))
        yield* Fiber.await(fiber)
        yield* expect(stopped.includes(handle) && stopped.includes(grandchild!.handle), "both to be stopped", stopped)
        const statuses = [descriptor(env, handle)?.status, descriptor(env, grandchild!.handle)?.status]
        yield* expect(statuses.every((s) => s === "cancelled"), "both cancelled", statuses)
      })
  }
]

/** One conformance check as a runner-neutral test: a name and a body that rejects on failure. */
export interface ConformanceTest {
  readonly name: string
  readonly run: () => Promise<void>
}

/**
 * The checks the backend's capabilities call for, as tests any runner can register:
 * `for (const t of conformanceTests(makeEnv, caps)) test(t.name, t.run)` (node:test, Jest, Bun).
 * `env` builds a fresh context for each check (in its own scope, with real time).
 */
export const conformanceTests = <E>(
  env: Effect.Effect<ConformanceEnv, E, Scope.Scope>,
  capabilities: ConformanceCapabilities = {}
): ReadonlyArray<ConformanceTest> =>
  conformanceChecks
    .filter((check) => check.needs === undefined || capabilities[check.needs] === true)
    .map((check) => ({
      name: check.name,
      // The one Promise boundary: a failed check becomes the runner's rejected test.
      run: () =>
        Effect.runPromise(Effect.scoped(env.pipe(
          Effect.mapError((e) => `the test env could not be built: ${String(e)}`),
          Effect.flatMap(check.run),
          Effect.mapError((message) => new Error(message))
        )))
    }))
