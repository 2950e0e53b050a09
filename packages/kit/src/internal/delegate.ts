import { type Records, ReportedOutput, type Vocabulary } from "@dsh/subagent"
import { Effect } from "effect"
import type { StandardSchemaV1 } from "../ResultSchema.ts"
import { type ChildResult, type ChildRun, toChildResult, type TypedChildResult } from "../Results.ts"
import { SubagentsError } from "../SubagentsError.ts"
import { reasonOf } from "./errors.ts"
import type { KitCoreShape, SessionRuntime } from "./core.ts"
import { jsonSchemaOf, validate } from "./schema.ts"

export interface DelegateRequest {
  readonly agent: string
  readonly prompt: string
  /** A short label for lists and logs; default the prompt's first words. */
  readonly description?: string | undefined
  readonly schema?: unknown
  readonly jsonSchema?: Readonly<Record<string, unknown>> | undefined
  readonly background?: boolean | undefined
  readonly timeoutSeconds?: number | undefined
  /** A foreground child `kit.detach` may move to the background (the call then resolves to its `ChildRun`). */
  readonly detachable?: boolean | undefined
}

const label = (prompt: string) => prompt.trim().split(/\s+/).slice(0, 5).join(" ")

const refusal = (e: { readonly reason: string; readonly message: string }) => new SubagentsError(reasonOf(e), e.message, { cause: e })

const feedback = (problem: string, json: Readonly<Record<string, unknown>>) =>
  `Your result was not accepted: ${problem}. Call \`report\` again with \`json\` matching this JSON Schema:\n${JSON.stringify(json)}`

/**
 * Checks a finished child's reported JSON with the caller's Standard Schema. The first
 * mismatch (or a child that did not report) is sent back to the child once; a second one is
 * `InvalidResult`. The `report` tool has already refused JSON that breaks the JSON Schema.
 */
const typed = <A>(core: KitCoreShape, rt: SessionRuntime, first: Records.SubagentResult, schema: StandardSchemaV1<A>, json: Readonly<Record<string, unknown>>) =>
  Effect.gen(function*() {
    const check = (r: Records.SubagentResult) =>
      Effect.gen(function*() {
        if (r.status !== "completed") return { ok: false as const, issues: `the child ended ${r.status}${r.notes === undefined ? "" : `: ${r.notes}`}`, final: true }
        const reported = ReportedOutput.reportedJsonOf(r.output)
        if (!reported.found) return { ok: false as const, issues: "it did not call `report` with `json`", final: false }
        const checked = yield* validate(schema, reported.json)
        return checked.ok ? checked : { ...checked, final: false }
      })
    let result = first
    let checked = yield* check(result)
    if (!checked.ok && !checked.final) {
      const reply = yield* core.governed(rt.context.subagents.send(result.handle, feedback(checked.issues, json), "user")).pipe(Effect.mapError(refusal))
      if (reply._tag === "Replied") {
        result = reply.result
        checked = yield* check(result)
      }
    }
    if (!checked.ok) return yield* Effect.fail(new SubagentsError("InvalidResult", `${result.handle} did not report a valid result: ${checked.issues}`))
    return { ...toChildResult(result), value: checked.value } satisfies TypedChildResult<A>
  })

/** `kit.delegate`: one child of the kit's lead, foreground (typed when a schema is given) or background. */
export const delegate = (core: KitCoreShape, request: DelegateRequest): Effect.Effect<ChildResult | TypedChildResult<unknown> | ChildRun, SubagentsError> =>
  Effect.gen(function*() {
    const schema = request.schema === undefined ? undefined : yield* jsonSchemaOf(request.schema, request.jsonSchema)
    if (schema !== undefined && request.background === true) {
      return yield* Effect.fail(new SubagentsError("InvalidOptions", "a typed result (schema) needs a foreground delegate: drop `background`, or read the background child's text from `wait`"))
    }
    if (schema !== undefined && request.detachable === true) {
      return yield* Effect.fail(new SubagentsError("InvalidOptions", "a typed result (schema) is waited for to its end: drop `detachable`, or delegate without a schema"))
    }
    const rt = yield* core.runtime()
    const spawn: Vocabulary.SpawnRequest = {
      agent: request.agent,
      prompt: request.prompt,
      description: request.description ?? label(request.prompt),
      ...(schema === undefined ? {} : { resultSchema: schema.json }),
      ...(request.timeoutSeconds === undefined ? {} : { timeoutSeconds: request.timeoutSeconds })
    }
    const { subagents, parent } = rt.context
    if (request.background === true) {
      const run = yield* core.governed(subagents.spawnBackground(spawn, parent)).pipe(Effect.mapError(refusal))
      return { handle: run.handle, status: "accepted", runId: run.runId } satisfies ChildRun
    }
    if (schema === undefined && request.detachable === true) {
      const outcome = yield* core.governed(subagents.spawnDetachable(spawn, parent)).pipe(Effect.mapError(refusal))
      if (outcome.status !== "accepted") return toChildResult(outcome)
      return { handle: outcome.handle, status: "accepted", runId: outcome.runId } satisfies ChildRun
    }
    // A typed child is waited for to its end: its caller needs the value (detaching it is refused).
    const result = yield* core.governed(subagents.spawn(spawn, parent)).pipe(Effect.mapError(refusal))
    return schema === undefined ? toChildResult(result) : yield* typed(core, rt, result, schema.schema, schema.json)
  })
