import type { Sandbox } from "@dsh/subprocess"
import type { Tool } from "@dsh/tools"
import { Effect } from "effect"

/** How `bash -c <script>` is to run: the program and its arguments, or why it may not. */
export type BashPlan =
  | { readonly _tag: "Run"; readonly command: string; readonly args: ReadonlyArray<string> }
  | { readonly _tag: "Refused"; readonly reason: string }

/**
 * `bash -c <script>` in the working directory, inside the sandbox when one is given. The first
 * unconfined command's warning goes to the log and, in a turn, to the transcript: the user
 * should see that commands are not confined.
 */
export const planBash = (
  sandbox: Sandbox.SandboxShape | undefined,
  script: string,
  context: Tool.ToolContext
): Effect.Effect<BashPlan> =>
  Effect.gen(function*() {
    const bash = { _tag: "Run" as const, command: "bash", args: ["-c", script] }
    if (sandbox === undefined) return bash
    const plan = yield* sandbox.plan({ command: bash.command, args: bash.args, cwd: context.cwd })
    switch (plan._tag) {
      case "Confined":
        return { _tag: "Run", command: plan.command, args: plan.args }
      case "Refused":
        return plan
      case "Unconfined":
        if (plan.warning !== undefined) {
          yield* Effect.logWarning(plan.warning)
          if (context.turn !== undefined) yield* context.turn.emit({ type: "notice", level: "warning", message: plan.warning })
        }
        return bash
    }
  })
