import { type AgentHost, AgentRunner, PolicyWarnings, type TurnLoop } from "@dsh/agent"
import { type Events, Usage } from "@dsh/core"
import type { ModelRegistry } from "@dsh/llm"
import type { SessionStore } from "@dsh/session"
import { InheritedDisallow, Toolbox } from "@dsh/tools"
import { Effect, Fiber, Option, Ref } from "effect"
import { childSummary } from "../ChildSummary.ts"
import type { HarnessOptions } from "../HarnessOptions.ts"
import { toHostError } from "../HostErrors.ts"
import { governed } from "./permissions.ts"
import type { RuntimeDeps } from "./runtime.ts"
import type { RunningSessions } from "./sessions.ts"

type PromptRequest = Parameters<AgentHost.AgentHostShape["prompt"]>[0]

/** What the turns said and spent so far: the answer of a cancelled prompt. */
interface Spent {
  readonly usage: Usage.Usage
  readonly cost: number | undefined
  readonly said: string
}

const tally = (pricing: HarnessOptions<unknown, unknown>["pricing"], spent: Spent, event: Events.AgentEvent): Spent => {
  let next = spent
  if (event.type === "usage") {
    next = { ...next, usage: Usage.addUsage(next.usage, event.usage), cost: Usage.addCost(next.cost, Usage.costOf(event.usage, pricing?.(event.model))) }
  }
  if (event.type === "message" && event.message.role === "assistant" && event.message.content !== "") next = { ...next, said: event.message.content }
  return next
}

/** The turns run until they end or `cancel` comes; a cancel waits until they are down. */
const untilCancelled = <E, R>(turns: Effect.Effect<TurnLoop.TurnResult, E, R>, cancel: Effect.Effect<void> | undefined, stopChildren: Effect.Effect<unknown>) =>
  Effect.gen(function*() {
    // A cancel interrupts the turns and waits until they are down (children stopped, records
    // written); the prompt then answers with what the turns had said and spent.
    const turning = yield* Effect.forkChild(turns)
    const first = yield* Effect.raceFirst(
      Effect.map(Fiber.await(turning), Option.some),
      Effect.as(cancel ?? Effect.never, Option.none())
    )
    if (Option.isNone(first)) {
      yield* Fiber.interrupt(turning)
      // Background children too: the answer lists them as they end up.
      yield* stopChildren
      return Option.none<TurnLoop.TurnResult>()
    }
    return Option.some(yield* first.value)
  })

/** `AgentHost.prompt`: the main agent's turns in the wake loop, on the session's runtime. */
export const makePrompt = (
  deps: {
    readonly registry: ModelRegistry.ModelRegistryShape
    readonly store: SessionStore.SessionStoreShape
    readonly resolveModel: RuntimeDeps["resolveModel"]
    readonly sessions: RunningSessions
    readonly pricing: HarnessOptions<unknown, unknown>["pricing"]
  }
): AgentHost.AgentHostShape["prompt"] =>
(request: PromptRequest) =>
  toHostError(Effect.scoped(Effect.gen(function*() {
    if (request.model !== undefined) {
      const model = yield* deps.registry.canonical(request.model)
      yield* deps.resolveModel(model)
      yield* (yield* deps.store.open(request.sessionId)).updateState((s) => ({ ...s, model }))
    }
    const rt = yield* deps.sessions.openRuntime(request.sessionId, request.onChildEvent)
    const { session, catalog, main } = rt
    const spent = yield* Ref.make<Spent>({ usage: Usage.emptyUsage, cost: undefined, said: "" })
    const onEvent = (event: Events.AgentEvent) =>
      Ref.update(spent, (s) => tally(deps.pricing, s, event)).pipe(Effect.andThen(request.onEvent?.(event) ?? Effect.void))
    const tools = [...main.tools, ...(request.tools ?? [])]
    const toolbox = Toolbox.make({
      tools,
      policy: { tools: catalog.main.tools, disallowedTools: catalog.main.disallowedTools },
      inheritedDisallowed: InheritedDisallow.disallowedBySettings(rt.permissions?.settings ?? [])
    })
    // Patterns that can never match are said when the profile applies, not silently ignored.
    for (const message of PolicyWarnings.agentPolicyWarnings(catalog.main, tools.map((t) => t.name), yield* main.subagents.typeNames)) {
      const notice: Events.AgentEvent = { type: "notice", level: "warning", message }
      yield* session.transcript.append(notice).pipe(Effect.ignore({ log: "Warn" }))
      yield* onEvent(notice)
    }
    yield* session.updateState((s) => ({ ...s, status: "running" }))
    // The parts belong to the user's own prompt; later turns of the wake loop answer announcements.
    const turns = governed(rt, rt.tree.runTurns("main", request.prompt, (text, beforeStep) =>
      AgentRunner.runPrompt({
        agent: "main",
        agentName: catalog.main.name,
        cwd: rt.state.cwd,
        model: rt.model,
        systemPrompt: catalog.systemPrompt,
        toolbox: Effect.succeed(toolbox),
        transcript: session.transcript,
        prompt: text,
        promptParts: text === request.prompt ? request.promptParts : undefined,
        maxSteps: request.maxSteps,
        onEvent,
        beforeStep
      })
    )).pipe(
      Effect.onInterrupt(() => session.updateState((s) => ({ ...s, status: "cancelled" })).pipe(Effect.ignore({ log: "Warn" })))
    )
    const finished = yield* untilCancelled(turns, request.cancel, rt.tree.stopHeld("all", "user"))
    const { usage, cost, said } = yield* Ref.get(spent)
    const result: TurnLoop.TurnResult = Option.isSome(finished)
      ? finished.value
      : { status: "cancelled", result: said, usage, messages: [], durationMs: 0, error: "the prompt was cancelled" }
    yield* session.updateState((s) => ({ ...s, status: AgentRunner.statusOfResult(result) }))
    return {
      sessionId: session.id,
      status: result.status,
      result: result.result,
      usage: result.usage,
      ...(cost === undefined ? {} : { cost }),
      subagents: rt.tree.descriptors.all().map(childSummary),
      ...(result.error === undefined ? {} : { error: result.error })
    }
  }))).pipe(Effect.withSpan("AgentHost.prompt", { attributes: { sessionId: request.sessionId } }))
