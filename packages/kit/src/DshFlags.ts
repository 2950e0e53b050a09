import { type PermissionPolicy, PermissionRule } from "@dsh/tools"
import { Data, Duration, Effect } from "effect"
import { stat } from "node:fs/promises"
import { resolve } from "node:path"

/**
 * dsh's command-line vocabulary, for a harness with a command line like `dsh`'s: `parseArgs`
 * option tables (`node:util`) and the checks of what they read. A bad value is a `DshFlagError`
 * whose message names the flag and what it takes.
 */
export class DshFlagError extends Data.TaggedError("DshFlagError")<{ readonly message: string }> {}

const fail = (message: string) => Effect.fail(new DshFlagError({ message }))

/** `--permission-mode`, `--allow RULE`…, `--deny RULE`…, `--yolo`. */
export const PERMISSION_FLAGS = {
  "permission-mode": { type: "string" },
  allow: { type: "string", multiple: true },
  deny: { type: "string", multiple: true },
  yolo: { type: "boolean" }
} as const

/** The permission flags read: a mode, and rules to add to the configured ones. */
export const permissions = (values: {
  readonly "permission-mode"?: string | undefined
  readonly allow?: ReadonlyArray<string> | undefined
  readonly deny?: ReadonlyArray<string> | undefined
  readonly yolo?: boolean | undefined
}): Effect.Effect<PermissionPolicy.PermissionSettings, DshFlagError> =>
  Effect.gen(function*() {
    const given = values["permission-mode"]
    const mode = given === undefined ? undefined : PermissionRule.parsePermissionMode(given)
    if (given !== undefined && mode === undefined) return yield* fail(`--permission-mode must be one of default, acceptEdits, plan, bypass (got "${given}")`)
    if (values.yolo === true && mode !== undefined && mode !== "bypass") {
      return yield* fail(`--yolo is --permission-mode bypass; it cannot be used with --permission-mode ${mode}`)
    }
    for (const [flag, rules] of [["--allow", values.allow], ["--deny", values.deny]] as const) {
      for (const rule of rules ?? []) {
        const read = PermissionRule.readPermissionRule(rule)
        if (read instanceof PermissionRule.PermissionRuleError) return yield* fail(`${flag}: ${read.message}`)
      }
    }
    return { mode: values.yolo === true ? "bypass" : mode, allow: values.allow ?? [], deny: values.deny ?? [] }
  })

/** The flags that choose a session and how it runs (`dsh run`, `dsh mcp`). */
export const SESSION_FLAGS = {
  agent: { type: "string" },
  "agent-file": { type: "string", multiple: true },
  model: { type: "string" },
  session: { type: "string" },
  continue: { type: "boolean", short: "c" },
  cwd: { type: "string" },
  "trust-project": { type: "boolean" }
} as const

/** The value of a repeatable flag that may be given at most once. */
export const onlyOnce = (values: ReadonlyArray<string> | undefined, flag: string): Effect.Effect<string | undefined, DshFlagError> =>
  values === undefined || values.length <= 1 ? Effect.succeed(values?.[0]) : fail(`${flag} may be given once (got ${values.length}: ${values.join(", ")})`)

/**
 * The session flags read: one agent file (as in Kimi Code: not repeatable), `--agent` or
 * `--agent-file` only for a new session; paths resolved against the caller's directory `cwd`.
 */
export const session = (values: {
  readonly agent?: string | undefined
  readonly "agent-file"?: ReadonlyArray<string> | undefined
  readonly model?: string | undefined
  readonly session?: string | undefined
  readonly continue?: boolean | undefined
  readonly cwd?: string | undefined
  readonly "trust-project"?: boolean | undefined
}, cwd: string) =>
  Effect.gen(function*() {
    const agentFile = yield* onlyOnce(values["agent-file"], "--agent-file")
    if (values.agent !== undefined && agentFile !== undefined) return yield* fail("use either --agent or --agent-file, not both")
    if ((values.agent !== undefined || agentFile !== undefined) && (values.session !== undefined || values.continue === true)) {
      return yield* fail("--agent/--agent-file choose a new session's agent; they cannot be used with --session or --continue")
    }
    const { model, agent, session, continue: resume } = values
    const agentFilePath = agentFile === undefined ? undefined : resolve(cwd, agentFile)
    return { cwd: resolve(cwd, values.cwd ?? "."), model, agent, agentFile: agentFilePath, session, continue: resume, trustProject: values["trust-project"] }
  })

/** A `--cwd` (or `flag`) that names no directory is bad input, found before anything is written. */
export const directory = (dir: string, flag = "--cwd"): Effect.Effect<void, DshFlagError> =>
  Effect.tryPromise(() => stat(dir)).pipe(
    Effect.flatMap((s) => (s.isDirectory() ? Effect.void : Effect.fail(new Error("not a directory")))),
    Effect.mapError(() => new DshFlagError({ message: `${flag} ${dir}: no such directory` }))
  )

/** A flag's positive whole number (`--max-steps`, `--limit`), if given. */
export const positiveInteger = (value: string | undefined, flag: string): Effect.Effect<number | undefined, DshFlagError> =>
  value === undefined || (Number.isInteger(Number(value)) && Number(value) >= 1) ? Effect.succeed(value === undefined ? undefined : Number(value)) : fail(`${flag} must be a positive integer (got "${value}")`)

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }

/** An age like `30d`, `12h`, `90m`, `45s`, `2w` (`dsh sessions prune --older-than`). */
export const age = (text: string, flag: string): Effect.Effect<Duration.Duration, DshFlagError> => {
  const m = /^(\d+)([smhdw])$/.exec(text.trim())
  const ms = m === null ? 0 : Number(m[1]) * UNITS[m[2]!]!
  return ms > 0 && Number.isSafeInteger(ms) ? Effect.succeed(Duration.millis(ms)) : fail(`${flag} must be a positive age like 30d, 12h, 90m, 45s or 2w (got "${text}")`)
}
