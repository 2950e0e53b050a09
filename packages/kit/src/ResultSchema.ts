/**
 * The parts of the Standard Schema (standardschema.dev) and Standard JSON Schema interfaces the
 * kit uses, declared here so no vendor package is needed: zod 4, valibot, ArkType and Effect
 * Schema (`Schema.toStandardSchemaV1`) all carry `~standard`.
 */
export interface StandardSchemaV1<Output = unknown> {
  readonly "~standard": {
    readonly version: 1
    readonly vendor: string
    readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>
    readonly types?: { readonly input: unknown; readonly output: Output } | undefined
    /** Standard JSON Schema: zod ≥ 4.2 and others expose the schema's JSON Schema here. */
    readonly jsonSchema?: { readonly input: (options: { readonly target: string }) => Record<string, unknown> } | undefined
  }
}

export type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<{ readonly message: string; readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined }> }

/** The type a Standard Schema parses to. */
export type InferOutput<S> = S extends StandardSchemaV1<infer O> ? O : unknown
