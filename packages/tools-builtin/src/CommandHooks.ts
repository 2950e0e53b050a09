import type { ProcessLauncher } from "@dsh/subprocess"
import type { Hooks } from "@dsh/tools"
import { Effect } from "effect"

/** A command hook as settings hold it (`[[hooks.<Event>]]`, Claude Code's `settings.json`). */
export interface CommandHookSpec {
  readonly event: Hooks.HookEventName
  readonly matcher?: string | undefined
  /** Run with `sh -c` in the agent's working directory, the event's JSON on stdin. */
  readonly command: string
  /** Seconds before the hook (its whole process group) is killed; a timeout is a warning. Default 60. */
  readonly timeout?: number | undefined
}

export const DEFAULT_HOOK_TIMEOUT_SECONDS = 60

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

const firstLine = (text: string) => text.trim().split("\n")[0] ?? ""

/**
 * What a command's exit means, as in Claude Code: 0 continues (a JSON object on stdout may carry
 * `decision`/`reason` and `hookSpecificOutput.permissionDecision`), 2 blocks with stderr as the
 * reason, anything else is a warning.
 */
export const readCommandOutcome = (exitCode: number | null, stdout: string, stderr: string): Hooks.HookResult => {
  if (exitCode === 2) return { decision: "block", reason: stderr.trim(), exitCode }
  if (exitCode !== 0) {
    return { warning: `exited with ${exitCode ?? "a signal"}${stderr.trim() === "" ? "" : `: ${firstLine(stderr)}`}`, ...(exitCode === null ? {} : { exitCode }) }
  }
  const text = stdout.trim()
  if (!text.startsWith("{")) return { exitCode }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return { exitCode }
  }
  if (!isRecord(json)) return { exitCode }
  const specific = isRecord(json.hookSpecificOutput) ? json.hookSpecificOutput : {}
  const decision = specific.permissionDecision
  const str = (v: unknown) => (typeof v === "string" ? v : undefined)
  return {
    exitCode,
    ...(json.decision === "block" ? { decision: "block" as const } : {}),
    ...(str(json.reason) === undefined ? {} : { reason: str(json.reason) }),
    ...(decision === "allow" || decision === "deny" || decision === "ask" ? { permissionDecision: decision } : {}),
    ...(str(specific.permissionDecisionReason) === undefined ? {} : { permissionDecisionReason: str(specific.permissionDecisionReason) })
  }
}

/**
 * A command hook on the `ProcessLauncher` seam: the process group is killed at the timeout, and
 * a timeout, a failed start or a crash is a warning.
 */
export const commandHook = (launcher: ProcessLauncher.ProcessLauncherShape, spec: CommandHookSpec): Hooks.HookRegistration => {
  const seconds = spec.timeout ?? DEFAULT_HOOK_TIMEOUT_SECONDS
  const run: Hooks.HookCallback = (input) =>
    launcher.run({
      command: "sh",
      args: ["-c", spec.command],
      cwd: input.cwd,
      input: JSON.stringify(input),
      timeout: `${seconds} seconds`,
      killGrace: "1 second",
      maxOutputBytes: 256 * 1024,
      env: { DSH_HOOK_EVENT: input.hook_event_name, CLAUDE_PROJECT_DIR: input.cwd }
    }).pipe(
      Effect.map((r): Hooks.HookResult =>
        r.timedOut ? { warning: `timed out after ${seconds} s and was killed` } : readCommandOutcome(r.exitCode, r.stdout, r.stderr)
      ),
      Effect.catch((e) => Effect.succeed<Hooks.HookResult>({ warning: `could not run: ${e.detail}` }))
    )
  return { event: spec.event, matcher: spec.matcher, name: spec.command, run }
}
