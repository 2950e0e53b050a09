import { Effect } from "effect"
import type { StandardResult, StandardSchemaV1 } from "../ResultSchema.ts"
import { SubagentsError } from "../SubagentsError.ts"

const isStandard = (u: unknown): u is StandardSchemaV1 =>
  (typeof u === "object" || typeof u === "function") && u !== null && "~standard" in u &&
  typeof (u as StandardSchemaV1)["~standard"]?.validate === "function"

/**
 * The JSON Schema the child's `report` must satisfy: the caller's `jsonSchema`, else the
 * schema's own Standard JSON Schema. Anything else is refused in one line before a child starts.
 */
export const jsonSchemaOf = (schema: unknown, given: Readonly<Record<string, unknown>> | undefined) =>
  Effect.suspend((): Effect.Effect<{ readonly schema: StandardSchemaV1; readonly json: Readonly<Record<string, unknown>> }, SubagentsError> => {
    if (!isStandard(schema)) {
      return Effect.fail(new SubagentsError("InvalidSchema", "schema must be a Standard Schema (zod 4, valibot, ArkType, Effect's Schema.toStandardSchemaV1): it has no `~standard.validate`"))
    }
    if (given !== undefined) return Effect.succeed({ schema, json: given })
    const standardJson = schema["~standard"].jsonSchema
    if (standardJson === undefined) {
      return Effect.fail(new SubagentsError("InvalidSchema", `this ${schema["~standard"].vendor} schema has no Standard JSON Schema (~standard.jsonSchema): pass its JSON Schema as \`jsonSchema\``))
    }
    return Effect.try({
      try: () => ({ schema, json: standardJson.input({ target: "draft-2020-12" }) }),
      catch: (e) => new SubagentsError("InvalidSchema", `the schema's JSON Schema could not be made: ${e instanceof Error ? e.message : String(e)}`)
    })
  })

const pathOf = (path: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined) =>
  path === undefined || path.length === 0 ? "(root)" : path.map((p) => String(typeof p === "object" ? p.key : p)).join(".")

/** Validates with the Standard Schema: the value, or the issues as one line the child can act on. */
export const validate = <A>(schema: StandardSchemaV1<A>, value: unknown): Effect.Effect<{ readonly ok: true; readonly value: A } | { readonly ok: false; readonly issues: string }> =>
  Effect.promise(async () => {
    // A vendor's validate may throw (a bug of its own): that is an invalid result, not a crash.
    const result: StandardResult<A> = await Promise.resolve().then(() => schema["~standard"].validate(value)).catch((e: unknown) => ({ issues: [{ message: String(e) }] }))
    return result.issues === undefined
      ? { ok: true as const, value: result.value }
      : { ok: false as const, issues: result.issues.map((i) => `${pathOf(i.path)}: ${i.message}`).join("; ") }
  })
