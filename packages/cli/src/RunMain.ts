import { type AgentDefinition, agentPolicyWarnings, type HostPromptResult, runPrompt, statusOfResult } from "@dsh/agent"
import { addUsage, type AgentEvent, type Message } from "@dsh/core"
import type { LanguageModelShape } from "@dsh/llm"
import type { SessionHandle } from "@dsh/session"
import { makeToolbox } from "@dsh/tools"
import { Effect } from "effect"
import type { DshConfig } from "./Config.ts"
import { childSummary } from "./Children.ts"
import type { CliContext } from "./Context.ts"
import { mainParent, makeHarness } from "./Harness.ts"
import { watchStopRequests } from "./StopRequests.ts"
import type { ResolvedMainAgent } from "./MainAgent.ts"

export interface MainRunOptions {
  readonly session: SessionHandle
  readonly cwd: string
  readonly model: LanguageModelShape
  readonly modelSpec: string
  readonly agent: ResolvedMainAgent
  readonly delegationTypes: ReadonlyArray<AgentDefinition>
  readonly renderPrompt: (definition: AgentDefinition, cwd: string) => string
  readonly config: DshConfig
  readonly ctx: CliContext
  readonly prompt: string
  readonly maxSteps?: number | undefined
  readonly onEvent: (event: AgentEvent) => Effect.Effect<void>
  readonly onChildEvent?: ((handle: string, event: AgentEvent) => Effect.Effect<void>) | undefined
}

/** The main agent's context: the harness, its parent info, its `ctx.subagents` and its tools. */
export const makeMainContext = (opts: Omit<MainRunOptions, "prompt" | "maxSteps">) =>
  Effect.gen(function*() {
    const def = opts.agent.definition
    const harness = yield* makeHarness({
      session: opts.session,
      env: opts.ctx.env,
      cwd: opts.cwd,
      model: opts.model,
      delegationTypes: opts.delegationTypes,
      limits: opts.config.limits,
      config: opts.config,
      renderPrompt: opts.renderPrompt,
      onChildEvent: opts.onChildEvent
    })
    // Subagent lifecycle events belong in the main transcript too, not only on the live stream.
    const parent = mainParent({
      cwd: opts.cwd,
      model: opts.model,
      definition: def,
      systemPrompt: opts.agent.systemPrompt,
      transcript: opts.session.transcript,
      onEvent: (event) => Effect.andThen(opts.session.transcript.append(event).pipe(Effect.ignore), opts.onEvent(event))
    })
    const subagents = yield* harness.subagentsFor(parent)
    yield* Effect.forkScoped(watchStopRequests(opts.session, subagents))
    const tools = yield* harness.toolsFor(parent)
    const toolbox = makeToolbox({ tools, policy: { tools: def.tools, disallowedTools: def.disallowedTools } })
    // Patterns that can never match are reported when the profile applies, not silently ignored.
    const typeNames = yield* subagents.typeNames
    for (const message of agentPolicyWarnings(def, tools.map((t) => t.name), typeNames)) {
      yield* parent.onEvent?.({ type: "notice", level: "warning", message }) ?? Effect.void
    }
    return { harness, parent, subagents, toolbox }
  })

/**
 * Runs one prompt of the session's main agent and records how it ended in `state.json`.
 * Background children's outcomes are announced before the next model call; a turn that ends
 * while background work still runs is not finished: the agent is woken with each outcome.
 */
export const runMainAgent = (opts: MainRunOptions) =>
  Effect.gen(function*() {
    const { harness, subagents, toolbox } = yield* makeMainContext(opts)
    const announcements = subagents.takeAnnouncements("main").pipe(
      Effect.map((texts) => texts.map((content): Message => ({ role: "user", content })))
    )
    // runPrompt syncs the transcript at the turn boundary; only then are announcements delivered.
    const turn = (prompt: string) =>
      runPrompt({
        agent: "main",
        cwd: opts.cwd,
        model: opts.model,
        systemPrompt: opts.agent.systemPrompt,
        toolbox: Effect.succeed(toolbox),
        transcript: opts.session.transcript,
        prompt,
        maxSteps: opts.maxSteps,
        onEvent: opts.onEvent,
        beforeStep: announcements
      }).pipe(Effect.tap(() => subagents.ackAnnouncements("main")))
    yield* opts.session.updateState((s) => ({ ...s, status: "running" }))
    const result = yield* Effect.gen(function*() {
      let last = yield* turn(opts.prompt)
      let usage = last.usage
      while (last.status === "completed" && (yield* subagents.pendingAnnouncements("main")) > 0) {
        yield* subagents.awaitAnnouncement("main")
        const texts = yield* subagents.takeAnnouncements("main")
        if (texts.length === 0) continue
        last = yield* turn(texts.join("\n\n"))
        usage = addUsage(usage, last.usage)
      }
      return { ...last, usage }
    }).pipe(
      Effect.onInterrupt(() => opts.session.updateState((s) => ({ ...s, status: "cancelled" })).pipe(Effect.ignore))
    )
    yield* opts.session.updateState((s) => ({ ...s, status: statusOfResult(result), model: opts.modelSpec }))
    return {
      sessionId: opts.session.id,
      status: result.status,
      result: result.result,
      usage: result.usage,
      subagents: harness.tree.descriptors.all().map(childSummary),
      ...(result.error === undefined ? {} : { error: result.error })
    } satisfies HostPromptResult
  }).pipe(Effect.scoped)
