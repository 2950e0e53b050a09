import { RunOutput } from "@dsh/harness"
import { DshRun } from "@dsh/kit/dsh"
import { Effect } from "effect"
import { resolve } from "node:path"
import { oneOf, parseFlags, readSessionFlags, SESSION_FLAGS } from "../Args.ts"
import { UsageError } from "../CliError.ts"
import type { CliContext } from "../Context.ts"
import { cliAsker, PERMISSION_FLAGS, type PermissionFlags, readPermissionFlags } from "../Permissions.ts"
import { residentLostReason } from "../ResidentLost.ts"

const FLAGS = {
  ...SESSION_FLAGS,
  print: { type: "boolean", short: "p" },
  "output-format": { type: "string" },
  "max-steps": { type: "string" },
  "plugin-dir": { type: "string", multiple: true },
  ...PERMISSION_FLAGS
} as const

const readStdin = (ctx: CliContext): Effect.Effect<string> =>
  ctx.stdin.isTTY === true
    ? Effect.succeed("")
    : Effect.promise(async () => {
      const chunks: Array<Buffer> = []
      for await (const chunk of ctx.stdin) chunks.push(Buffer.from(chunk as Uint8Array))
      return Buffer.concat(chunks).toString("utf8")
    })

export interface RunInput extends DshRun.RunRequest {
  /** `--permission-mode`, `--allow`, `--deny`, `--yolo`. */
  readonly permissions?: PermissionFlags | undefined
}

export const parseRunArgs = (args: ReadonlyArray<string>, ctx: CliContext) =>
  Effect.gen(function*() {
    const { values, positionals } = yield* parseFlags(args, FLAGS, "run")
    const format = yield* oneOf(values["output-format"], RunOutput.OUTPUT_FORMATS, "--output-format", "text")
    const chosen = yield* readSessionFlags(values, ctx.cwd)
    const plugins = (values["plugin-dir"] ?? []).map((d) => resolve(ctx.cwd, d))
    // Plugins are bound with the agent when the session is created, and come back with it.
    if (plugins.length > 0 && (values.session !== undefined || values.continue === true)) {
      return yield* new UsageError({ message: "--plugin-dir enables plugins for a new session; a continued session keeps those it was created with" })
    }
    let maxSteps: number | undefined
    if (values["max-steps"] !== undefined) {
      maxSteps = Number(values["max-steps"])
      if (!Number.isInteger(maxSteps) || maxSteps < 1) {
        return yield* new UsageError({ message: `--max-steps must be a positive integer (got "${values["max-steps"]}")` })
      }
    }
    const prompt = positionals.length > 0 ? positionals.join(" ") : (yield* readStdin(ctx)).trim()
    if (prompt === "") return yield* new UsageError({ message: "run: a prompt is required (dsh run \"prompt\")" })
    const permissions = yield* readPermissionFlags(values)
    return {
      ...chosen,
      prompt,
      format,
      maxSteps,
      plugins: plugins.length === 0 ? undefined : plugins,
      print: values.print,
      permissions
    } satisfies RunInput
  })

/** `dsh run`: dsh's run (see `DshRun.run`), its questions on this terminal, ended if its resident goes away. */
export const executeRun = (input: RunInput, ctx: CliContext) => DshRun.run(input, ctx, cliAsker(ctx, input.print === true), residentLostReason)

/** `dsh run`: the flags are read before the host is built (they join its permission rules). */
