import { TerminalAsker } from "@dsh/harness"
import { Asker, type PermissionPolicy } from "@dsh/tools"
import type { CliContext } from "./Context.ts"

/** What the permission flags say (`DshFlags.permissions`): a mode, and rules added to the configured ones. */
export type PermissionFlags = PermissionPolicy.PermissionSettings

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
