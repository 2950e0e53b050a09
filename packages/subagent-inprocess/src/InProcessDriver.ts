import { AgentRunner, type TurnLoop } from "@dsh/agent"
import { type Messages, Usage } from "@dsh/core"
import type { LanguageModel } from "@dsh/llm"
import { AnnounceStep, type Records, ReportedOutput, type Vocabulary } from "@dsh/subagent"
import { InheritedDisallow, Toolbox, type ToolPolicy } from "@dsh/tools"
import { Clock, Effect, Ref } from "effect"
import { make as makeMemoryTranscript } from "./MemoryTranscript.ts"

export interface InProcessRun {
  readonly context: Vocabulary.StartContext
  /** What the child is told this time: the task on start, the message on continue. */
  readonly prompt: string
  /** Messages placed before the child's own history (a fork's parent prefix, when nothing persists). */
  readonly seed?: ReadonlyArray<Messages.Message> | undefined
  /** Replaces the model the service chose (`context.model`). */
  readonly model?: LanguageModel.LanguageModelShape | undefined
  /** Replaces the agent type's rendered system prompt (a fork keeps its parent's). */
  readonly systemPrompt?: string | undefined
  /** Replaces the agent type's tool policy (a fork keeps its parent's). */
  readonly policy?: ToolPolicy.ToolPolicy | undefined
}

const iso = (ms: number) => new Date(ms).toISOString()

/**
 * Runs a child agent loop in the calling fiber, in its own context: its own tools (as the
 * harness builds them for the child), its own system prompt, its own transcript. Its turns run
 * in the wake loop (`StartContext.runTurns`): a child whose own background children still run
 * when its turn ends waits for them, hears their outcomes and only then reports. Exactly one
 * cleanup runs per run, on success, failure and interruption alike: it syncs the transcript and
 * records how the run ended in `meta.json`.
 */
export const runInProcess = (run: InProcessRun): Effect.Effect<Vocabulary.ChildOutcome> =>
  Effect.gen(function*() {
    const { context } = run
    const { type, request, parent, handle } = context
    const model = run.model ?? context.model.model
    const depth = parent.depth + 1
    const reported = yield* Ref.make<Vocabulary.ReportedResult | undefined>(undefined)
    const child = yield* context.childContext({
      handle,
      depth,
      cwd: parent.cwd,
      model,
      type,
      requester: parent.definition,
      report: (r) => Ref.set(reported, r),
      resultSchema: request.resultSchema
    })
    const policy = run.policy ?? { tools: type.definition.tools, disallowedTools: type.definition.disallowedTools }
    // What its ancestors disallow binds it too; what it disallows binds everything it starts.
    const toolbox = Toolbox.make({ tools: child.tools, policy, inheritedDisallowed: yield* InheritedDisallow.InheritedDisallowedTools })
    const transcript = context.store?.transcript ?? makeMemoryTranscript(`memory:${handle}`)
    // Patterns of the child's profile that can never match, said where its run is recorded.
    for (const message of child.warnings ?? []) {
      const notice = { type: "notice", level: "warning", message } as const
      yield* transcript.append(notice).pipe(Effect.ignore({ log: "Warn", message: `could not record a warning in ${handle}'s transcript` }))
      yield* context.onEvent(notice)
    }
    const meta: Records.ChildMeta = {
      handle,
      runId: context.runId,
      agent: type.name,
      provider: type.provider,
      parent: parent.handle,
      depth,
      model: `${model.provider}:${model.model}`,
      ...(request.thinking === undefined ? {} : { thinking: request.thinking }),
      status: "running",
      startedAt: iso(yield* Clock.currentTimeMillis)
    }
    const ended = yield* Ref.make<Records.ChildMeta["status"]>("cancelled")
    // The outcome is announced anyway (the parent has it in hand); the parent hears that the child's record may be incomplete.
    const unsaved = yield* Ref.make<string | undefined>(undefined)
    const cleanup = Effect.gen(function*() {
      yield* transcript.sync.pipe(Effect.catch((e) =>
        Effect.logWarning(`could not sync ${handle}'s transcript: ${e.message}`).pipe(
          Effect.andThen(Ref.set(unsaved, `${handle}'s transcript may be incomplete on disk: ${e.message}`))
        )
      ))
      if (context.store !== undefined) {
        const endedAt = iso(yield* Clock.currentTimeMillis)
        yield* context.store.writeMeta({ ...meta, status: yield* Ref.get(ended), endedAt } satisfies Records.ChildMeta).pipe(
          Effect.ignore({ log: "Warn", message: `could not write ${handle}'s meta.json` })
        )
      }
    })
    // The wake loop delivers messages sent to the child and its own background outcomes.
    const result = yield* context.runTurns(run.prompt, (prompt, beforeStep) =>
      AgentRunner.runPrompt({
        agent: handle,
        agentName: type.name,
        backend: type.provider,
        cwd: parent.cwd,
        model,
        systemPrompt: run.systemPrompt ?? child.systemPrompt,
        toolbox: Effect.succeed(toolbox),
        transcript,
        prompt,
        thinking: request.thinking,
        seed: run.seed,
        onEvent: context.onEvent,
        beforeStep,
        stopHook: { event: "SubagentStop", agentType: type.name }
      })
    ).pipe(
      InheritedDisallow.bindDisallowedTools(policy.disallowedTools),
      Effect.tap((r) => Ref.set(ended, r.status)),
      Effect.catchTag("SessionError", (e) =>
        Ref.set(ended, "failed").pipe(Effect.as<TurnLoop.TurnResult>({ status: "failed", result: "", usage: Usage.emptyUsage, messages: [], durationMs: 0, error: e.message }))),
      Effect.ensuring(cleanup)
    )
    // The announce step: a completed background run is asked, in its own session, for its announcement.
    const announced = context.request.background === true && result.status === "completed"
      ? yield* AgentRunner.runPrompt({
        agent: handle,
        cwd: parent.cwd,
        model,
        systemPrompt: run.systemPrompt ?? child.systemPrompt,
        toolbox: Effect.succeed(Toolbox.make({ tools: [] })),
        transcript,
        prompt: AnnounceStep.ANNOUNCE_PROMPT,
        maxSteps: 1,
        onEvent: context.onEvent
      }).pipe(
        InheritedDisallow.bindDisallowedTools(policy.disallowedTools),
        Effect.ensuring(transcript.sync.pipe(Effect.ignore)),
        Effect.orElseSucceed(() => undefined)
      )
      : undefined
    const report = yield* Ref.get(reported)
    // The parent hears what the child's model could not be sent, next to any error.
    const trouble = yield* Ref.get(unsaved)
    const notes = [...(result.error === undefined ? [] : [result.error]), ...(result.warnings ?? []), ...(trouble === undefined ? [] : [trouble])]
    return {
      status: result.status,
      output: report === undefined ? result.result : ReportedOutput.reportedOutput(report),
      usage: announced === undefined ? result.usage : Usage.addUsage(result.usage, announced.usage),
      ...(notes.length === 0 ? {} : { notes: notes.join("; ") }),
      // A reply only when the step completed: a tool call or a failure leaves the run's result as it is.
      ...(announced?.status === "completed" && announced.result.trim() !== "" ? { announcement: announced.result.trim() } : {})
    } satisfies Vocabulary.ChildOutcome
  })
