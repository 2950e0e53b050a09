import { runPrompt } from "@dsh/agent"
import { emptyUsage, type Message } from "@dsh/core"
import type { LanguageModelShape } from "@dsh/llm"
import type { ChildOutcome, ReportedResult, StartContext } from "@dsh/subagent"
import { makeToolbox, type ToolPolicy } from "@dsh/tools"
import { Effect, Ref } from "effect"
import { makeMemoryTranscript } from "./MemoryTranscript.ts"

export interface InProcessRun {
  readonly context: StartContext
  /** What the child is told this time: the task on start, the message on continue. */
  readonly prompt: string
  /** Messages placed before the child's own history (a fork's parent prefix). */
  readonly seed?: ReadonlyArray<Message> | undefined
  /** The model to use when the request names none; defaults to the parent's. */
  readonly model?: LanguageModelShape | undefined
  /** Replaces the agent type's rendered system prompt (a fork keeps its parent's). */
  readonly systemPrompt?: string | undefined
  /** Replaces the agent type's tool policy (a fork keeps its parent's). */
  readonly policy?: ToolPolicy | undefined
}

/** What `meta.json` says about a child run, beside its `wire.jsonl`. */
export interface ChildMeta {
  readonly handle: string
  readonly runId: string
  readonly agent: string
  readonly provider: string
  readonly parent: string
  readonly depth: number
  readonly model: string
  readonly status: string
  readonly startedAt: string
  readonly endedAt?: string | undefined
}

/**
 * Runs a child agent loop in the calling fiber, in its own context: its own tools (as the
 * harness builds them for the child), its own system prompt, its own transcript. Exactly
 * one cleanup effect runs per run, on success, failure and interruption alike: it records
 * how the run ended in `meta.json` and syncs the transcript.
 */
export const runInProcess = (run: InProcessRun): Effect.Effect<ChildOutcome> =>
  Effect.gen(function*() {
    const { context } = run
    const { type, request, parent, handle } = context
    const spec = request.model ?? type.definition.model
    const model = spec !== undefined
      ? yield* context.resolveModel(spec).pipe(Effect.result)
      : undefined
    if (model !== undefined && model._tag === "Failure") {
      return { status: "failed", output: "", usage: emptyUsage, notes: `cannot use model ${spec}: ${model.failure.message}` } satisfies ChildOutcome
    }
    const chosen = model?.success ?? run.model ?? parent.model
    const depth = parent.depth + 1
    const reported = yield* Ref.make<ReportedResult | undefined>(undefined)
    const child = yield* context.childContext({
      handle,
      depth,
      cwd: parent.cwd,
      model: chosen,
      type,
      report: (r) => Ref.set(reported, r),
      resultSchema: request.resultSchema
    })
    const toolbox = makeToolbox({
      tools: child.tools,
      policy: run.policy ?? { tools: type.definition.tools, disallowedTools: type.definition.disallowedTools }
    })
    const transcript = context.store?.transcript ?? makeMemoryTranscript(`memory:${handle}`)
    const meta: ChildMeta = {
      handle,
      runId: context.runId,
      agent: type.name,
      provider: type.provider,
      parent: parent.handle,
      depth,
      model: `${chosen.provider}:${chosen.model}`,
      status: "running",
      startedAt: new Date().toISOString()
    }
    const ended = yield* Ref.make<string>("cancelled")
    const cleanup = Effect.gen(function*() {
      yield* transcript.sync.pipe(Effect.ignore)
      if (context.store !== undefined) {
        yield* context.store.writeMeta({ ...meta, status: yield* Ref.get(ended), endedAt: new Date().toISOString() }).pipe(Effect.ignore)
      }
    })
    const result = yield* runPrompt({
      agent: handle,
      cwd: parent.cwd,
      model: chosen,
      systemPrompt: run.systemPrompt ?? child.systemPrompt,
      toolbox: Effect.succeed(toolbox),
      transcript,
      prompt: run.prompt,
      thinking: request.thinking,
      seed: run.seed,
      onEvent: context.onEvent,
      // Messages sent while the child runs are delivered before its next model call.
      beforeStep: context.takeMessages.pipe(
        Effect.map((messages) => messages.map((content): Message => ({ role: "user", content })))
      )
    }).pipe(
      Effect.tap((r) => Ref.set(ended, r.status)),
      Effect.catchTag("SessionError", (e) =>
        Effect.succeed({ status: "failed" as const, result: "", usage: emptyUsage, messages: [], durationMs: 0, error: e.message }).pipe(
          Effect.tap(() => Ref.set(ended, "failed"))
        )),
      Effect.ensuring(cleanup)
    )
    const report = yield* Ref.get(reported)
    return {
      status: result.status,
      output: report === undefined ? result.result : report.json === undefined ? report.text : `${report.text}\n\n${JSON.stringify(report.json)}`,
      usage: result.usage,
      ...(result.error === undefined ? {} : { notes: result.error })
    } satisfies ChildOutcome
  })
