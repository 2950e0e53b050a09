import { Usage } from "@dsh/core"
import type { Vocabulary } from "@dsh/subagent"
import { Effect, Option } from "effect"
import { A2A_PROVIDER, type A2aAgentConfig, a2aTypeName, checkA2aAgent } from "./A2aAgentConfig.ts"
import { type ResolvedA2aAgent, resolveA2aAgent } from "./A2aCard.ts"
import { A2A_CONTINUATION_VERSION, A2aContinuation } from "./A2aContinuation.ts"
import { runA2a, type RunOptions } from "./internal/A2aRun.ts"

export interface A2aProviderOptions {
  /** The remote agents, by type name `a2a:<name>` (`[a2a.agents.<name>]`, or `a2aAgents([...])`). */
  readonly agents: ReadonlyArray<A2aAgentConfig>
  /** Where `${VAR}` in headers and env values is read from. Default `process.env`. */
  readonly environment?: Readonly<Record<string, string | undefined>> | undefined
  /** How long a card may take to arrive. Default 10 seconds. */
  readonly cardTimeoutMs?: number | undefined
  /** Between two get-task calls of an agent that does not stream. Default 500 ms. */
  readonly pollIntervalMs?: number | undefined
  /** How long cancel-task may take on stop or timeout. Default 2 seconds. */
  readonly cancelGraceMs?: number | undefined
  /** The `fetch` every request goes through (tests, proxies). Default the global one. */
  readonly fetch?: typeof fetch | undefined
}

/** One remote agent as `dsh agents list --json` shows it (`a2aAgents`). */
export interface A2aAgentStatus {
  readonly name: string
  readonly url: string
  readonly status: "ok" | "invalid"
  readonly reason?: string | undefined
  /** The agent file that declared it, for an agent from a Gemini CLI `kind: remote` file. */
  readonly source?: string | undefined
}

/** The backend, and what became of each agent's card. */
export interface A2aBackend extends Vocabulary.SubagentBackend {
  readonly statuses: ReadonlyArray<A2aAgentStatus>
}

/**
 * The `a2a` backend: each remote agent whose card was read and checked (once, here, with a
 * timeout) is the type `a2a:<name>`, described from its card; one whose card is missing,
 * invalid, over 1 MiB or names no JSON-RPC interface is left out, with its reason in `statuses`.
 * A child is a message sent to the agent (streamed or polled), continuable by its `contextId`.
 */
export const makeA2aBackend = (options: A2aProviderOptions): Effect.Effect<A2aBackend> =>
  Effect.gen(function*() {
    const environment = options.environment ?? process.env
    const read = yield* Effect.forEach(options.agents, (agent) => {
      const why = checkA2aAgent(agent)
      if (why !== undefined) return Effect.succeed({ agent, reason: `a2a:${agent.name}: ${why}` } as const)
      return resolveA2aAgent(agent, { timeoutMs: options.cardTimeoutMs ?? 10_000, environment, fetch: options.fetch }).pipe(
        Effect.map((resolved) => ({ agent, resolved }) as const),
        Effect.catch((e) => Effect.succeed({ agent, reason: e.message } as const))
      )
    }, { concurrency: "unbounded" })
    const byType = new Map<string, ResolvedA2aAgent>()
    for (const r of read) if ("resolved" in r) byType.set(a2aTypeName(r.agent.name), r.resolved)
    const runOptions = { environment, pollIntervalMs: options.pollIntervalMs ?? 500, cancelGraceMs: options.cancelGraceMs ?? 2000, fetch: options.fetch }
    const resolvedFor = (type: string) => byType.get(type)
    const provider: Vocabulary.SubagentProvider = {
      specificationVersion: "v1",
      name: A2A_PROVIDER,
      description: "a remote agent spoken to over the Agent2Agent protocol (JSON-RPC); continuable by its contextId",
      start: (context) => {
        const resolved = resolvedFor(context.type.name)
        return resolved === undefined
          ? Effect.succeed({ status: "failed", output: "", usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 }, notes: `no A2A agent is available for "${context.type.name}"` })
          : withTimeout(resolved, runTurns(resolved, context, context.request.prompt, undefined, runOptions))
      },
      continue: (context) => {
        const resolved = resolvedFor(context.type.name)
        return resolved === undefined
          ? Effect.succeed({ status: "failed", output: "", usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 }, notes: `no A2A agent is available for "${context.type.name}"` })
          : withTimeout(resolved, runTurns(resolved, context, context.message, context.continuation as A2aContinuation, runOptions))
      },
      // It runs on the remote agent's own model: the service chooses none for it.
      keepsParentModel: true,
      continuation: { version: A2A_CONTINUATION_VERSION, schema: A2aContinuation },
      // The remote agent holds the conversation: any saved contextId can be continued, warm or cold.
      checkContinue: () => Effect.void
    }
    return {
      provider,
      types: [...byType.values()].map((r) => r.type),
      statuses: read.map((r): A2aAgentStatus => {
        // An inline card has no URL of its own: its JSON-RPC endpoint stands for it.
        const url = r.agent.url === "" && "resolved" in r ? r.resolved.endpoint : r.agent.url
        const source = r.agent.source === undefined ? {} : { source: r.agent.source }
        return "resolved" in r ? { name: r.agent.name, url, status: "ok", ...source } : { name: r.agent.name, url, status: "invalid", reason: r.reason, ...source }
      })
    }
  })

/**
 * One run: the message, then each message sent to the child while it ran, as further messages
 * in the same context (the remote agent hears them in order), while the turns complete.
 */
const runTurns = (resolved: ResolvedA2aAgent, context: Vocabulary.StartContext, text: string, saved: A2aContinuation | undefined, options: RunOptions) =>
  Effect.gen(function*() {
    let turn = 0
    let { outcome, continuation } = yield* runA2a(resolved, context, text, saved, options, turn)
    let usage = outcome.usage
    while (outcome.status === "completed" && continuation !== undefined) {
      const queued = yield* context.takeMessages
      if (queued.length === 0) break
      for (const message of queued) {
        turn += 1
        ;({ outcome, continuation } = yield* runA2a(resolved, context, message, continuation, options, turn))
        usage = Usage.addUsage(usage, outcome.usage)
        if (outcome.status !== "completed" || continuation === undefined) break
      }
    }
    return { ...outcome, usage } satisfies Vocabulary.ChildOutcome
  })

/** An agent's own `timeout_seconds` bounds its run (the tree's limit applies as well). */
const withTimeout = (resolved: ResolvedA2aAgent, run: Effect.Effect<Vocabulary.ChildOutcome>): Effect.Effect<Vocabulary.ChildOutcome> => {
  const seconds = resolved.agent.timeoutSeconds
  if (seconds === undefined) return run
  return run.pipe(
    Effect.timeoutOption(seconds * 1000),
    Effect.map((o) =>
      Option.isSome(o) ? o.value : {
        status: "timeout" as const,
        output: "",
        usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
        notes: `a2a:${resolved.agent.name}: no answer within its timeout_seconds = ${seconds} (cancel-task was sent)`
      }
    )
  )
}
