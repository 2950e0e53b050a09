/** Why a kit call failed. */
export type SubagentsErrorReason =
  /** `delegate`/`send` named an agent or handle the kit does not have; the message lists what it has. */
  | "UnknownAgent"
  /** A call after `close()`. */
  | "Closed"
  /** A child never reported a result its `schema` accepts (it was told the problem once). */
  | "InvalidResult"
  /** `schema` is not a Standard Schema, or has no JSON Schema to show the child. */
  | "InvalidSchema"
  /** A session or child handle that does not exist (the message lists the kit's children). */
  | "NotFound"
  /** `model` is neither a spec string nor a dsh `LanguageModelShape`. */
  | "UnsupportedModel"
  /** Options the kit cannot use (a bad store, a bad agent definition, rules that do not parse). */
  | "InvalidOptions"
  /** The caller's `AbortSignal` stopped the call (children it started are stopped too). */
  | "Aborted"
  /** Anything else: a store or backend failure, a refused delegation; the message says what. */
  | "Failed"

/**
 * The one error type of `@dsh/kit`: a plain `Error` with a `reason`, so callers who do not use
 * Effect can `catch` and switch on it. Effect failures are converted at the boundary; no call
 * ever rejects with an Effect `FiberFailure`.
 */
export class SubagentsError extends Error {
  override readonly name = "SubagentsError"
  readonly reason: SubagentsErrorReason
  constructor(reason: SubagentsErrorReason, message: string, options?: { readonly cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause })
    this.reason = reason
  }
}

/** True for a `SubagentsError`, whatever copy of the package made it. */
export const isSubagentsError = (u: unknown): u is SubagentsError => u instanceof Error && u.name === "SubagentsError" && "reason" in u
