import { Tool } from "@dsh/tools"
import type { ProcessLauncher, Sandbox } from "@dsh/subprocess"
import { Effect } from "effect"
import * as z from "zod"
import { planBash } from "./internal/bashPlan.ts"

export const BASH_DEFAULT_TIMEOUT_MS = 120_000
export const BASH_MAX_TIMEOUT_MS = 600_000

const parameters = z.object({
  command: z.string().min(1).describe("The command line, run with `bash -c` in the working directory."),
  timeoutMs: z.number().int().min(1).max(BASH_MAX_TIMEOUT_MS).optional().describe(
    `Milliseconds before the command and everything it started are stopped. Default ${BASH_DEFAULT_TIMEOUT_MS}, at most ${BASH_MAX_TIMEOUT_MS}.`
  ),
  description: z.string().optional().describe("A few words on what the command does, shown to the user.")
})

/** stdout, then stderr and the exit status, labelled so the model can tell them apart. */
const format = (result: ProcessLauncher.RunResult): string => {
  const parts: Array<string> = []
  if (result.stdout !== "") parts.push(result.stdout.replace(/\n$/, ""))
  if (result.stderr !== "") parts.push(`[stderr]\n${result.stderr.replace(/\n$/, "")}`)
  if (result.truncated) parts.push("[output cut: the command wrote more than the kept limit]")
  parts.push(result.signal !== null ? `[killed by ${result.signal}]` : `[exit code ${result.exitCode ?? "unknown"}]`)
  return parts.join("\n")
}

/**
 * The Bash tool over a process launcher: each call runs `bash -c` in the agent's working
 * directory with a scrubbed environment (inside the sandbox when one is given); on timeout the
 * whole process tree is stopped.
 */
export interface BashOptions {
  /** Variables the command sees on top of the scrubbed environment (credentials included, on purpose). */
  readonly env?: Readonly<Record<string, string>> | undefined
  /**
   * Confines every command (bubblewrap: read-only file system except the working directory and
   * a private /tmp, own PID namespace, no network unless allowed). Without it commands run
   * unconfined. With `mode = "on"` and no working bwrap, Bash refuses and says how to install it;
   * with `auto`, the first unconfined command warns (log and a `notice` in the transcript).
   */
  readonly sandbox?: Sandbox.SandboxShape | undefined
}

export const makeBashTool = (launcher: ProcessLauncher.ProcessLauncherShape, options: BashOptions = {}): Tool.AnyTool =>
  Tool.defineTool({
    name: "Bash",
    description: [
      "Run a shell command with bash in the working directory and return its stdout, stderr and exit code.",
      `It times out after timeoutMs (default ${BASH_DEFAULT_TIMEOUT_MS / 1000} s, at most ${BASH_MAX_TIMEOUT_MS / 1000} s); the command and`,
      "every process it started are then stopped. Background processes do not outlive the command, stdin is",
      "not connected (no interactive programs), and the environment holds no credentials unless configured.",
      "Prefer Read, Glob and Grep over cat, find and grep."
    ].join(" "),
    parameters,
    needsApproval: true,
    permission: { kind: "execute", command: (params) => params.command },
    summarize: (params) => `$ ${params.command}${params.description === undefined ? "" : `  # ${params.description}`}`,
    execute: (params, context) =>
      Effect.gen(function*() {
        const timeoutMs = params.timeoutMs ?? BASH_DEFAULT_TIMEOUT_MS
        const plan = yield* planBash(options.sandbox, params.command, context)
        if (plan._tag === "Refused") return { content: `Bash is not available: ${plan.reason}.`, isError: true }
        const result = yield* launcher.run({
          command: plan.command,
          args: plan.args,
          cwd: context.cwd,
          timeout: timeoutMs,
          ...(options.env === undefined ? {} : { env: options.env })
        }).pipe(
          Effect.mapError((error) => new Tool.ToolError({ message: `could not run the command: ${error.detail}` }))
        )
        if (result.timedOut) {
          return {
            content: `The command timed out after ${timeoutMs} ms; it and every process it started were stopped.\n${format(result)}`,
            isError: true
          }
        }
        return { content: format(result), isError: result.signal !== null }
      })
  })
