import { TerminalAsker } from "@dsh/harness"
import { Asker, PermissionPolicy, PermissionRule } from "@dsh/tools"
import { Effect } from "effect"
import { UsageError } from "./CliError.ts"
import type { CliContext } from "./Context.ts"

/** The permission flags of `dsh run`, `dsh acp` and `dsh sdk`. */
export const PERMISSION_FLAGS = {
  "permission-mode": { type: "string" },
  allow: { type: "string", multiple: true },
  deny: { type: "string", multiple: true },
  yolo: { type: "boolean" }
} as const

/** What the flags say: a mode, and rules added to the configured ones. */
export type PermissionFlags = PermissionPolicy.PermissionSettings

/** Reads the flags; a malformed rule or an unknown mode is a usage error naming it. */
export const readPermissionFlags = (values: {
  readonly "permission-mode"?: string | undefined
  readonly allow?: ReadonlyArray<string> | undefined
  readonly deny?: ReadonlyArray<string> | undefined
  readonly yolo?: boolean | undefined
}): Effect.Effect<PermissionFlags, UsageError> =>
  Effect.gen(function*() {
    const given = values["permission-mode"]
    const mode = given === undefined ? undefined : PermissionRule.parsePermissionMode(given)
    if (given !== undefined && mode === undefined) {
      return yield* new UsageError({ message: `--permission-mode must be one of default, acceptEdits, plan, bypass (got "${given}")` })
    }
    if (values.yolo === true && mode !== undefined && mode !== "bypass") {
      return yield* new UsageError({ message: `--yolo is --permission-mode bypass; it cannot be used with --permission-mode ${mode}` })
    }
    for (const [flag, rules] of [["--allow", values.allow], ["--deny", values.deny]] as const) {
      for (const rule of rules ?? []) {
        const read = PermissionRule.readPermissionRule(rule)
        if (read instanceof PermissionRule.PermissionRuleError) return yield* new UsageError({ message: `${flag}: ${read.message}` })
      }
    }
    return { mode: values.yolo === true ? "bypass" : mode, allow: values.allow ?? [], deny: values.deny ?? [] }
  })

/** How a denial no one could answer tells the model (and so the user) to allow the call. */
export const cliAllowHint = (question: Asker.PermissionQuestion): string =>
  question.reason.startsWith("ask: ")
    ? Asker.configAllowHint(question)
    : `To allow it, run with --allow '${question.subject.replaceAll("'", "'\\''")}' or add allow = [${JSON.stringify(question.subject)}] under [permissions] in config.toml.`

/** Who answers questions: the terminal when stdin and stderr are one and `-p` was not given; otherwise no one. */
export const cliAsker = (ctx: CliContext, print: boolean): Asker.AskerShape =>
  ctx.stdin.isTTY === true && (ctx.stderr as { readonly isTTY?: boolean }).isTTY === true && !print
    ? TerminalAsker.terminalAsker({ input: ctx.stdin, output: ctx.stderr })
    : Asker.nobodyAsker({ hint: cliAllowHint, why: print ? "-p runs without questions" : "no one can be asked (stdin is not a terminal)" })
