import { Context } from "effect"

/** Limits that hold for a whole session tree. */
export interface SubagentLimitsShape {
  /** Children running at once; the rest wait in the lane, visibly `queued`. */
  readonly maxConcurrent: number
  /** Default wall-clock timeout per child run. */
  readonly timeoutSeconds: number
  /** Nesting depth: children at this depth are not offered `subagent` (1 = only the main agent delegates). */
  readonly maxDepth: number
  /** Children per session tree. */
  readonly maxChildren: number
}

export const MAX_DEPTH_CEILING = 5

export const defaultLimits: SubagentLimitsShape = {
  maxConcurrent: 8,
  timeoutSeconds: 600,
  maxDepth: 1,
  maxChildren: 200
}

export const SubagentLimits = Context.Reference<SubagentLimitsShape>("@dsh/subagent/SubagentLimits", {
  defaultValue: () => defaultLimits
})

/** Clamps user-provided limits into their valid ranges. */
/** Limits as a user gives them: any may be missing. */
export type SubagentLimitsInput = { readonly [K in keyof SubagentLimitsShape]?: number | undefined }

export const normalizeLimits = (limits: SubagentLimitsInput): SubagentLimitsShape => ({
  maxConcurrent: Math.max(1, Math.floor(limits.maxConcurrent ?? defaultLimits.maxConcurrent)),
  timeoutSeconds: Math.max(0.001, limits.timeoutSeconds ?? defaultLimits.timeoutSeconds),
  maxDepth: Math.min(MAX_DEPTH_CEILING, Math.max(0, Math.floor(limits.maxDepth ?? defaultLimits.maxDepth))),
  maxChildren: Math.max(1, Math.floor(limits.maxChildren ?? defaultLimits.maxChildren))
})
