import { Lost } from "@dsh/cli-resident"
import { RunOutput } from "@dsh/harness"
import { DshFlags, DshRun } from "@dsh/kit/dsh"
import { Effect } from "effect"
import { resolve } from "node:path"
import { oneOf, parseFlags } from "../Args.ts"
import { UsageError } from "../CliError.ts"
import type { CliContext } from "../Context.ts"
import { cliAsker, type PermissionFlags } from "../Permissions.ts"

const FLAGS = {
  ...DshFlags.SESSION_FLAGS,
  print: { type: "boolean", short: "p" },
  "output-format": { type: "string" },
  "max-steps": { type: "string" },
  "plugin-dir": { type: "string", multiple: true },
  ...DshFlags.PERMISSION_FLAGS
} as const

export interface RunInput extends DshRun.RunRequest {
  /** `--permission-mode`, `--allow`, `--deny`, `--yolo`. */
  readonly permissions?: PermissionFlags | undefined
}

export const parseRunArgs = (args: ReadonlyArray<string>, ctx: CliContext) =>
  Effect.gen(function*() {
    const { values, positionals } = yield* parseFlags(args, FLAGS, "run")
    const format = yield* oneOf(values["output-format"], RunOutput.OUTPUT_FORMATS, "--output-format", "text")
    const chosen = yield* DshFlags.session(values, ctx.cwd)
    const plugins = (values["plugin-dir"] ?? []).map((d) => resolve(ctx.cwd, d))
    // Plugins are bound with the agent when the session is created, and come back with it.
    if (plugins.length > 0 && (values.session !== undefined || values.continue === true)) {
      return yield* new UsageError({ message: "--plugin-dir enables plugins for a new session; a continued session keeps those it was created with" })
    }
    const maxSteps = yield* DshFlags.positiveInteger(values["max-steps"], "--max-steps")
    const prompt = positionals.length > 0 ? positionals.join(" ") : (yield* RunOutput.readInput(ctx.stdin)).trim()
    if (prompt === "") return yield* new UsageError({ message: "run: a prompt is required (dsh run \"prompt\")" })
    return {
      ...chosen,
      prompt,
      format,
      maxSteps,
      plugins: plugins.length === 0 ? undefined : plugins,
      print: values.print,
      permissions: yield* DshFlags.permissions(values)
    } satisfies RunInput
  })

/** `dsh run`: dsh's run (see `DshRun.run`), its questions on this terminal, ended if its resident goes away. */
export const executeRun = (input: RunInput, ctx: CliContext) => DshRun.run(input, ctx, cliAsker(ctx, input.print === true), Lost.residentLostReason)

/** `dsh run`: the flags are read before the host is built (they join its permission rules). */
