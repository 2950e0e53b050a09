import { Effect, Schema } from "effect"
import { type CompiledRule, compileRule, parsePermissionMode, PermissionMode, type PermissionRule, PermissionRuleError, parsePermissionRule } from "./PermissionRule.ts"
import { type PermissionSubject, subjectForms } from "./PermissionSubject.ts"

/**
 * Permission settings as a user writes them (`[permissions]` in config.toml, `--allow`, …).
 * Precedence: `deny` > `ask` > `allow` > the mode's default. A Schema, so settings that travel
 * (to the cluster runner that hosts a child) keep every field.
 */
export const PermissionSettings = Schema.Struct({
  mode: Schema.optional(PermissionMode),
  allow: Schema.optional(Schema.Array(Schema.String)),
  ask: Schema.optional(Schema.Array(Schema.String)),
  deny: Schema.optional(Schema.Array(Schema.String)),
  /**
   * Where the settings come from, when not from a user's rules: `disallowedTools` are an
   * agent's `disallowedTools` as deny rules over its subtree (`bindDisallowedTools`); a
   * denial then says so (`disallowedTools: Bash`).
   */
  origin: Schema.optional(Schema.Literal("disallowedTools"))
})
export type PermissionSettings = typeof PermissionSettings.Type

/**
 * Settings as a user or a parent process writes them down: the mode as text (Claude Code's
 * `bypassPermissions` too), read with `parsePermissionMode`. What the SDK's `session.create`
 * and a child session's `parentPermissions` carry.
 */
export const PermissionSettingsAsWritten = PermissionSettings.mapFields((fields) => ({ ...fields, mode: Schema.optional(Schema.String) }))
export type PermissionSettingsAsWritten = typeof PermissionSettingsAsWritten.Type

/** Settings whose rules have been parsed. */
export interface PermissionPolicy {
  readonly mode: PermissionMode
  readonly allow: ReadonlyArray<CompiledRule>
  readonly ask: ReadonlyArray<CompiledRule>
  readonly deny: ReadonlyArray<CompiledRule>
  readonly settings: PermissionSettings
}

/** How one policy decides a call, before anyone is asked. `rule` is `deny: Bash(rm -rf *)` or `mode: plan`. */
export interface Verdict {
  readonly decision: "allow" | "ask" | "deny"
  readonly via: "rule" | "mode"
  readonly rule: string
}

/** Parses every rule of the settings; the first malformed one fails, naming it. */
export const compilePermissionPolicy = (settings: PermissionSettings): Effect.Effect<PermissionPolicy, PermissionRuleError> =>
  Effect.gen(function*() {
    const rules = (list: ReadonlyArray<string> | undefined) =>
      Effect.forEach(list ?? [], (text) => Effect.map(parsePermissionRule(text), compileRule))
    const mode = settings.mode === undefined ? "default" : parsePermissionMode(settings.mode)
    if (mode === undefined) {
      return yield* new PermissionRuleError({ rule: String(settings.mode), message: `unknown permission mode "${settings.mode}" (default, acceptEdits, plan, bypass)` })
    }
    return { mode, allow: yield* rules(settings.allow), ask: yield* rules(settings.ask), deny: yield* rules(settings.deny), settings }
  })

/** Parses a list of rules (e.g. `--allow` flags) and reports the first malformed one. */
export const parsePermissionRules = (rules: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<PermissionRule>, PermissionRuleError> =>
  Effect.forEach(rules, parsePermissionRule)

/** Whether a rule names the call's tool (or one of its aliases). */
const names = (rule: CompiledRule, subject: PermissionSubject) =>
  rule.matchesTool(subject.tool) || (subject.aliases ?? []).some((a) => rule.matchesTool(a))

const covers = (rule: CompiledRule, subject: PermissionSubject, form: string) =>
  names(rule, subject) && rule.matchesForm(form, subject.match ?? "text")

/** A deny or ask rule applies when it covers any form of the call. */
const firstCovering = (rules: ReadonlyArray<CompiledRule>, subject: PermissionSubject): CompiledRule | undefined => {
  const forms = subjectForms(subject)
  return rules.find((r) => names(r, subject) && (r.rule.specifier === undefined || forms.some((f) => covers(r, subject, f))))
}

/** Allow rules apply only when, together, they cover every form of the call. */
const allowing = (rules: ReadonlyArray<CompiledRule>, subject: PermissionSubject): CompiledRule | undefined => {
  const forms = subjectForms(subject)
  const tooled = rules.filter((r) => names(r, subject))
  const whole = tooled.find((r) => r.rule.specifier === undefined)
  if (whole !== undefined) return whole
  if (forms.length === 0) return undefined
  const coveringEach = forms.map((f) => tooled.find((r) => covers(r, subject, f)))
  return coveringEach.every((r) => r !== undefined) ? coveringEach[0] : undefined
}

/** The mode's answer for a call no rule settles. */
const byMode = (mode: PermissionMode, subject: PermissionSubject): Verdict => {
  const rule = `mode: ${mode}`
  const as = (decision: Verdict["decision"]): Verdict => ({ decision, via: "mode", rule })
  if (subject.kind === "read") return as("allow")
  switch (mode) {
    case "bypass":
      return as("allow")
    case "plan":
      return as("deny")
    case "acceptEdits":
      return as(subject.kind === "edit" && subject.insideCwd === true ? "allow" : "ask")
    case "default":
      return as("ask")
  }
}

/** How one policy decides a call: deny > ask > allow > the mode (in `bypass`, ask rules allow). */
export const evaluatePolicy = (policy: PermissionPolicy, subject: PermissionSubject): Verdict => {
  const denied = firstCovering(policy.deny, subject)
  if (denied !== undefined) return { decision: "deny", via: "rule", rule: `${policy.settings.origin ?? "deny"}: ${denied.rule.text}` }
  const asked = firstCovering(policy.ask, subject)
  if (asked !== undefined) return { decision: policy.mode === "bypass" ? "allow" : "ask", via: "rule", rule: `ask: ${asked.rule.text}` }
  const allowed = allowing(policy.allow, subject)
  if (allowed !== undefined) return { decision: "allow", via: "rule", rule: `allow: ${allowed.rule.text}` }
  return byMode(policy.mode, subject)
}

const rank = { deny: 0, ask: 1, allow: 2 } as const

/**
 * How a stack of policies decides: the strictest verdict wins (deny, then ask, then allow),
 * so a policy added below another can narrow what it allows and never widen it.
 */
export const evaluatePolicies = (policies: ReadonlyArray<PermissionPolicy>, subject: PermissionSubject): Verdict =>
  policies.map((p) => evaluatePolicy(p, subject)).reduce<Verdict | undefined>(
    (strictest, v) => (strictest === undefined || rank[v.decision] < rank[strictest.decision] ? v : strictest),
    undefined
  ) ?? { decision: "allow", via: "mode", rule: "mode: bypass" }

/** Settings added to settings: rules concatenated, the later mode (when given) replacing the earlier. */
export const mergeSettings = (...all: ReadonlyArray<PermissionSettings | undefined>): PermissionSettings =>
  all.reduce<PermissionSettings>((acc, s) => s === undefined ? acc : ({
    mode: s.mode ?? acc.mode,
    allow: [...(acc.allow ?? []), ...(s.allow ?? [])],
    ask: [...(acc.ask ?? []), ...(s.ask ?? [])],
    deny: [...(acc.deny ?? []), ...(s.deny ?? [])]
  }), {})

/**
 * What a host's own settings keep when it runs a child for another process whose rules decide
 * the child (a cluster runner): only what narrows — its deny rules, its ask rules (as denials:
 * nobody can be asked there) and a `plan` mode. Its allow rules and other modes drop out: the
 * admitting process's rules already say what is allowed, and `bypass` in a layer widens nothing.
 */
export const narrowingOnly = (settings: PermissionSettings): PermissionSettings => ({
  mode: settings.mode === "plan" ? "plan" : "bypass",
  deny: [...(settings.deny ?? []), ...(settings.ask ?? [])],
  ...(settings.origin === undefined ? {} : { origin: settings.origin })
})
