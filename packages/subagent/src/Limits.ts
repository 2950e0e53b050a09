import { Context } from "effect"

/** Limits that hold for a whole session tree. */
export interface SubagentLimitsShape {
  /** Children running at once; the rest wait in the lane, visibly `queued`. */
  readonly maxConcurrent: number
  /** Default wall-clock timeout per child run; 0 means no timeout. */
  readonly timeoutSeconds: number
  /** Nesting depth: children at this depth are not offered `subagent` (1 = only the main agent delegates; default 2). */
  readonly maxDepth: number
  /** Children per session tree. */
  readonly maxChildren: number
  /**
   * Bytes of output one child run may produce (what its transcript records plus the text it
   * is streaming); past it the child is stopped as `failed`, with a note saying so.
   */
  readonly maxChildOutputBytes: number
}

export const MAX_DEPTH_CEILING = 5

export const defaultLimits: SubagentLimitsShape = {
  maxConcurrent: 8,
  timeoutSeconds: 600,
  // 2, as the seed has it: the default `coder` may hand a naturally separate part to its own
  // `explore`; `explore` and `plan` list no subagents, so they never delegate.
  maxDepth: 2,
  maxChildren: 200,
  maxChildOutputBytes: 10 * 1024 * 1024
}

/** The limits of the trees built in this context; the defaults unless a layer provides others. */
export const SubagentLimits = Context.Reference<SubagentLimitsShape>("@dsh/subagent/SubagentLimits", {
  defaultValue: () => defaultLimits
})

/** Limits as a user gives them: any may be missing. */
export type SubagentLimitsInput = { readonly [K in keyof SubagentLimitsShape]?: number | undefined }

/** Clamps user-provided limits into their valid ranges (a timeout of 0 stays 0: no timeout). */
export const normalizeLimits = (limits: SubagentLimitsInput): SubagentLimitsShape => ({
  maxConcurrent: Math.max(1, Math.floor(limits.maxConcurrent ?? defaultLimits.maxConcurrent)),
  timeoutSeconds: Math.max(0, limits.timeoutSeconds ?? defaultLimits.timeoutSeconds),
  maxDepth: Math.min(MAX_DEPTH_CEILING, Math.max(0, Math.floor(limits.maxDepth ?? defaultLimits.maxDepth))),
  maxChildren: Math.max(1, Math.floor(limits.maxChildren ?? defaultLimits.maxChildren)),
  maxChildOutputBytes: Math.max(1, Math.floor(limits.maxChildOutputBytes ?? defaultLimits.maxChildOutputBytes))
})
