import { Context, Effect } from "effect"
import picomatch from "picomatch"

export interface ApprovalRequest {
  readonly tool: string
  readonly input: unknown
  /** A one-line summary of what the call does. */
  readonly summary: string
  readonly agent: string
  readonly cwd: string
}

export type ApprovalDecision =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly reason: string }

/**
 * Decides whether a tool that needs approval may run. Children inherit their parent's
 * instance, so the rules a user set for the main agent hold for every descendant.
 * The default allows everything (a non-interactive run the user started on purpose).
 */
export interface ApprovalShape {
  readonly decide: (request: ApprovalRequest) => Effect.Effect<ApprovalDecision>
}

export const Approval = Context.Reference<ApprovalShape>("@dsh/tools/Approval", {
  defaultValue: () => ({ decide: () => Effect.succeed({ allowed: true }) })
})

export interface ApprovalRules {
  /** Tool-name globs that are allowed at once. */
  readonly allow?: ReadonlyArray<string> | undefined
  /** Tool-name globs that are denied at once (checked first). */
  readonly deny?: ReadonlyArray<string> | undefined
  /** Asked for everything the rules do not settle; without it such calls are denied. */
  readonly ask?: ((request: ApprovalRequest) => Effect.Effect<ApprovalDecision>) | undefined
}

/** An approval policy from allow/deny rules plus an optional interactive fallback. */
export const approvalFromRules = (rules: ApprovalRules): ApprovalShape => {
  const allow = (rules.allow ?? []).map((p) => picomatch(p))
  const deny = (rules.deny ?? []).map((p) => picomatch(p))
  return {
    decide: (request) => {
      if (deny.some((m) => m(request.tool))) {
        return Effect.succeed({ allowed: false, reason: `${request.tool} is denied by the approval rules` })
      }
      if (allow.some((m) => m(request.tool))) return Effect.succeed({ allowed: true })
      return rules.ask?.(request) ??
        Effect.succeed({ allowed: false, reason: `${request.tool} needs approval and this run is not interactive` })
    }
  }
}
