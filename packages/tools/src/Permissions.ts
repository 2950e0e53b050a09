import type { Events } from "@dsh/core"
import { Context, Effect, Layer, Semaphore } from "effect"
import { Asker } from "./Asker.ts"
import { compilePermissionPolicy, evaluatePolicies, type PermissionPolicy, type PermissionSettings, type Verdict } from "./PermissionPolicy.ts"
import type { PermissionRuleError } from "./PermissionRule.ts"
import { type PermissionSubject, subjectText } from "./PermissionSubject.ts"

/** A call to decide: who makes it, where, and the call as rules see it. */
export interface PermissionRequest {
  readonly agent: string
  readonly cwd: string
  readonly subject: PermissionSubject
  /** A one-line summary for a question (`$ git push`). */
  readonly summary?: string | undefined
  readonly input?: unknown
  /**
   * A `PreToolUse` hook's permission decision: `allow` skips the question (deny rules and the
   * mode's denials still win, as in Claude Code), `ask` asks even where a rule allows.
   */
  readonly hook?: { readonly decision: "allow" | "ask"; readonly hook: string } | undefined
}

/** A decision, with everything the `permission` event records. */
export interface PermissionDecision {
  readonly allowed: boolean
  /** `Bash(git push)`. */
  readonly subject: string
  readonly via: "rule" | "mode" | "asked"
  /** The rule or mode that decided, or that asked (`deny: Bash(rm -rf *)`, `mode: plan`, `session: Bash(git push)`). */
  readonly rule?: string | undefined
  /** Who answered, when asked. */
  readonly by?: string | undefined
  readonly remember?: "once" | "session" | undefined
  /** For a denial: what the model reads in the tool result. */
  readonly reason?: string | undefined
}

/**
 * The permission rules of a session tree: rules and modes (a stack of settings, each able only
 * to narrow the ones above it), the answers remembered for the session, and one question at a
 * time to the `Asker` of the calling fiber. Children share their parent's instance (it is a
 * fiber reference), so nothing the parent denies runs anywhere in the tree.
 */
export interface PermissionsShape {
  /** False only for the default, which allows everything and records nothing (no rules were given). */
  readonly configured: boolean
  /** The stack of settings, outermost first: what a child process gets so it can only narrow them. */
  readonly settings: ReadonlyArray<PermissionSettings>
  readonly decide: (request: PermissionRequest) => Effect.Effect<PermissionDecision>
  /** The same session state (remembered answers, the question queue) under one more, narrower, policy. */
  readonly narrow: (settings: PermissionSettings) => Effect.Effect<PermissionsShape, PermissionRuleError>
}

/** No rules: everything is allowed and nothing recorded, as before permissions existed. */
export const unrestrictedPermissions: PermissionsShape = {
  configured: false,
  settings: [],
  decide: (request) => Effect.succeed({ allowed: true, subject: subjectText(request.subject), via: "mode", rule: "mode: bypass" }),
  narrow: (settings) => make(settings)
}

export const Permissions = Context.Reference<PermissionsShape>("@dsh/tools/Permissions", { defaultValue: () => unrestrictedPermissions })

interface SessionState {
  readonly remembered: Set<string>
  readonly questions: Semaphore.Semaphore
}

const DISALLOWED = "disallowedTools: "

const denial = (subject: string, verdict: Verdict): string =>
  verdict.via === "mode"
    ? `${subject} is denied: the permission mode is ${verdict.rule.slice("mode: ".length)}, which allows nothing that changes files or runs commands.`
    : verdict.rule.startsWith(DISALLOWED)
    ? `${subject} is denied: an agent above this one lists ${verdict.rule.slice(DISALLOWED.length)} in disallowedTools, which binds every agent it delegates to.`
    : `${subject} is denied by the rule ${JSON.stringify(verdict.rule.slice("deny: ".length))} ([permissions] deny).`

const build = (policies: ReadonlyArray<PermissionPolicy>, state: SessionState): PermissionsShape => {
  const decide = (request: PermissionRequest): Effect.Effect<PermissionDecision> =>
    Effect.gen(function*() {
      const subject = subjectText(request.subject)
      const verdict = evaluatePolicies(policies, request.subject)
      if (verdict.decision === "deny") return { allowed: false, subject, via: verdict.via, rule: verdict.rule, reason: denial(subject, verdict) }
      if (verdict.decision === "allow" && request.hook?.decision !== "ask") return { allowed: true, subject, via: verdict.via, rule: verdict.rule }
      if (request.hook?.decision === "allow") return { allowed: true, subject, via: "rule" as const, rule: `hook: ${request.hook.hook}` }
      const remembered: PermissionDecision = { allowed: true, subject, via: "rule", rule: `session: ${subject}` }
      if (state.remembered.has(subject)) return remembered
      // One question at a time for the whole tree; an answer given meanwhile may settle this one.
      return yield* state.questions.withPermit(Effect.gen(function*() {
        if (state.remembered.has(subject)) return remembered
        const asker = yield* Asker
        const answer = yield* asker.ask({
          agent: request.agent,
          subject,
          tool: request.subject.tool,
          kind: request.subject.kind,
          specifier: request.subject.specifier,
          summary: request.summary ?? subject,
          reason: verdict.rule,
          cwd: request.cwd,
          input: request.input
        })
        if (answer.allow && answer.remember === "session") state.remembered.add(subject)
        return {
          allowed: answer.allow,
          subject,
          via: "asked",
          rule: verdict.rule,
          by: answer.by,
          ...(answer.allow ? { remember: answer.remember ?? "once" } : { reason: answer.reason ?? `${answer.by === "user" ? "the user" : answer.by} declined ${subject}` })
        } satisfies PermissionDecision
      }))
    }).pipe(Effect.withSpan("Permissions.decide", { attributes: { agent: request.agent, tool: request.subject.tool } }))
  return {
    configured: true,
    settings: policies.map((p) => p.settings),
    decide,
    narrow: (settings) => Effect.map(compilePermissionPolicy(settings), (policy) => build([...policies, policy], state))
  }
}

/**
 * Permissions from settings (each later entry narrowing the ones before); a malformed rule or
 * mode fails, naming it. Remembered answers live as long as the returned value: make one per
 * session.
 */
export const make = (...settings: ReadonlyArray<PermissionSettings>): Effect.Effect<PermissionsShape, PermissionRuleError> =>
  Effect.gen(function*() {
    const policies = yield* Effect.forEach(settings.length === 0 ? [{}] : settings, compilePermissionPolicy)
    return build(policies, { remembered: new Set(), questions: yield* Semaphore.make(1) })
  })

/** `Permissions` from settings, as a layer. */
export const layer = (...settings: ReadonlyArray<PermissionSettings>): Layer.Layer<never, PermissionRuleError> =>
  Layer.effect(Permissions, make(...settings)) as Layer.Layer<never, PermissionRuleError>

/** The transcript event of a decision about the call `id`. */
export const permissionEvent = (id: string, decision: PermissionDecision): Events.AgentEvent => ({
  type: "permission",
  id,
  subject: decision.subject,
  decision: decision.allowed ? "allowed" : "denied",
  via: decision.via,
  ...(decision.rule === undefined ? {} : { rule: decision.rule }),
  ...(decision.by === undefined ? {} : { by: decision.by }),
  ...(decision.remember === undefined ? {} : { remember: decision.remember })
})
