import type { Vocabulary } from "@dsh/subagent"
import { Tool } from "@dsh/tools"
import { Effect } from "effect"
import * as z from "zod"

export const REPORT_TOOL_NAME = "report"

/**
 * The parent's JSON Schema as the model sees `json`'s parameter schema (merged in by
 * `z.toJSONSchema` from the field's metadata); a schema with references keeps only the
 * description, since its `$ref`s would point at the wrong root.
 */
const shownSchema = (schema: Readonly<Record<string, unknown>>): Record<string, unknown> | undefined => {
  const { $schema: _ignored, $id: _id, ...rest } = schema
  return JSON.stringify(rest).includes("\"$ref\"") ? undefined : rest
}

const issuesOf = (error: z.ZodError) =>
  error.issues.map((i) => `${i.path.length > 0 ? i.path.join(".") : "(root)"}: ${i.message}`).join("; ")

const RESULT = z.string().min(1).describe("The complete, self-contained result for the parent")
/**
 * The parameters of a `report` without a result schema: one object shared by every child, so
 * the toolbox converts it to JSON Schema once (its cache is keyed by the zod object), not per child.
 */
const PLAIN_PARAMETERS = z.object({ result: RESULT, json: z.unknown().optional().describe("Structured result, when the parent asked for one") })

/**
 * The `report` tool of a continuable child: it hands a result to the parent and the child
 * stays continuable (the parent can `send_message` it later). Without `report`, the child's
 * final message is its result. When the parent asked for a JSON Schema, `json` is required
 * and validated; a mismatch is an error result the child can fix.
 */
export const make = (options: {
  readonly report: (result: Vocabulary.ReportedResult) => Effect.Effect<void, string>
  readonly resultSchema?: Readonly<Record<string, unknown>> | undefined
}) => {
  const schema = options.resultSchema === undefined ? undefined : z.fromJSONSchema(options.resultSchema as Parameters<typeof z.fromJSONSchema>[0])
  const shown = options.resultSchema === undefined ? undefined : shownSchema(options.resultSchema)
  // Validated in the handler either way, so a mismatch reads as this tool's own error.
  const parameters = shown === undefined
    ? PLAIN_PARAMETERS
    : z.object({ result: RESULT, json: z.unknown().optional().meta({ ...shown, description: "The structured result, matching the parent's JSON Schema (required)" }) })
  return Tool.defineTool({
    name: REPORT_TOOL_NAME,
    description: "Hand your result to the agent that delegated this task. Use it when the task is done (or you " +
      "need to report progress); you may be sent further messages afterwards, with your context intact." +
      (schema === undefined ? "" : `\nThe result must include \`json\` matching this JSON Schema:\n${JSON.stringify(options.resultSchema)}`),
    parameters,
    execute: (params) =>
      Effect.gen(function*() {
        if (schema !== undefined) {
          if (params.json === undefined) return yield* new Tool.ToolError({ message: "this parent asked for a structured result: pass `json`" })
          const checked = schema.safeParse(params.json)
          if (!checked.success) return yield* new Tool.ToolError({ message: `json does not match the requested schema: ${issuesOf(checked.error)}` })
        }
        yield* options.report({ text: params.result, ...(params.json === undefined ? {} : { json: params.json }) }).pipe(
          Effect.mapError((message) => new Tool.ToolError({ message }))
        )
        return "Reported to the parent. You may stop here; you can be continued later."
      })
  })
}
