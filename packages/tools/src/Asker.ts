import { Context, Effect } from "effect"
import type { ToolKind } from "./PermissionSubject.ts"

/** A call the rules leave to a person: who asks, for what, and which rule or mode asked. */
export interface PermissionQuestion {
  /** The handle of the agent that wants to make the call (`main`, `explore-2`, `codex-1/main`). */
  readonly agent: string
  /** The call as rules see it: `Bash(git push)`. */
  readonly subject: string
  readonly tool: string
  readonly kind: ToolKind
  /** The command or path, when the call has one. */
  readonly specifier?: string | undefined
  /** A one-line summary from the tool (`$ git push`, `Write a.txt (12 bytes)`). */
  readonly summary: string
  /** Why it is asked: `ask: Bash` or `mode: default`. */
  readonly reason: string
  readonly cwd: string
  readonly input: unknown
}

/** An answer: allow (once, or for the rest of the session) or deny, and who answered. */
export interface PermissionAnswer {
  readonly allow: boolean
  /** `session`: the same call is allowed without asking for the rest of the session. */
  readonly remember?: "once" | "session" | undefined
  /** `user`, `acp-client`, `sdk-client`, or `none` when no one could be asked. */
  readonly by: string
  /** For a denial: what the model is told. */
  readonly reason?: string | undefined
}

/**
 * Who answers the calls the rules leave open. A harness provides one per place it runs: a
 * terminal prompt, the ACP client (`dsh acp`), the SDK client (`dsh sdk`). The default asks
 * no one: the call is denied with a reason that names the rule and how to allow it.
 * `Permissions` asks one question at a time, so an asker never sees two at once.
 */
export interface AskerShape {
  readonly ask: (question: PermissionQuestion) => Effect.Effect<PermissionAnswer>
}

/** How to allow a call, for a denial no one could answer; the CLI says which flag or config line does it. */
export type AllowHint = (question: PermissionQuestion) => string

/** The default hint: the config line that allows the call (an `ask` rule must go first: it beats `allow`). */
export const configAllowHint: AllowHint = (question) =>
  question.reason.startsWith("ask: ")
    ? `It matches the rule ${JSON.stringify(question.reason.slice(5))} in [permissions] ask, which beats allow: remove it to let an allow rule apply.`
    : `To allow it, add ${JSON.stringify(question.subject)} to allow in [permissions].`

/** An asker for places where no one can answer (no terminal, `-p`, a client without the capability). */
export const nobodyAsker = (options: { readonly hint?: AllowHint | undefined; readonly why?: string | undefined } = {}): AskerShape => ({
  ask: (question) =>
    Effect.succeed({
      allow: false,
      by: "none",
      reason: `${question.subject} needs approval (${question.reason}) and ${options.why ?? "no one can be asked in this run"}. ${
        (options.hint ?? configAllowHint)(question)
      }`
    })
})

export const Asker = Context.Reference<AskerShape>("@dsh/tools/Asker", { defaultValue: () => nobodyAsker() })

const VERBS: Readonly<Record<string, string>> = { Bash: "run", Write: "write", Edit: "edit", Read: "read" }

/** The question as a person reads it: `explore-2 wants to run: git push`. */
export const questionText = (question: PermissionQuestion): string => {
  const verb = VERBS[question.tool]
  return verb !== undefined && question.specifier !== undefined
    ? `${question.agent} wants to ${verb}: ${question.specifier}`
    : `${question.agent} wants to use: ${question.subject}`
}
