import { Effect } from "effect"
import { resolve } from "node:path"
import type { ParseArgsConfig } from "node:util"
import { UsageError } from "./CliError.ts"

// Not `import … from "node:util"`: an ES import of node:util reads every export, which loads a
// dozen more of Node's internal modules (worker_threads, assert's diff, …) at every start.
const { parseArgs } = process.getBuiltinModule("node:util")

type Options = NonNullable<ParseArgsConfig["options"]>

/** Strict flag parsing: an unknown or malformed flag is a usage error, never ignored. */
export const parseFlags = <O extends Options>(args: ReadonlyArray<string>, options: O, command: string) =>
  Effect.try({
    try: () => parseArgs({ args: [...args], options, allowPositionals: true, strict: true }),
    catch: (e) => new UsageError({ message: `${command}: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}` })
  })

export const oneOf = <A extends string>(value: string | undefined, allowed: ReadonlyArray<A>, flag: string, fallback: A) =>
  value === undefined
    ? Effect.succeed(fallback)
    : (allowed as ReadonlyArray<string>).includes(value)
    ? Effect.succeed(value as A)
    : Effect.fail(new UsageError({ message: `${flag} must be one of ${allowed.join(", ")} (got "${value}")` }))

/** A repeatable flag that may be given at most once: its value, or a usage error. */
export const onlyOnce = (values: ReadonlyArray<string> | undefined, flag: string) =>
  values === undefined || values.length <= 1
    ? Effect.succeed(values?.[0])
    : Effect.fail(new UsageError({ message: `${flag} may be given once (got ${values.length}: ${values.join(", ")})` }))

/** The flags of `dsh run` and `dsh mcp` that choose a session and how it runs. */
export const SESSION_FLAGS = {
  agent: { type: "string" },
  "agent-file": { type: "string", multiple: true },
  model: { type: "string" },
  session: { type: "string" },
  continue: { type: "boolean", short: "c" },
  cwd: { type: "string" },
  "trust-project": { type: "boolean" }
} as const

/**
 * The session flags checked: one agent file (as in Kimi Code: not repeatable), `--agent` or
 * `--agent-file` only for a new session; paths resolved against the caller's directory.
 */
export const readSessionFlags = (values: {
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
    if (values.agent !== undefined && agentFile !== undefined) {
      return yield* new UsageError({ message: "use either --agent or --agent-file, not both" })
    }
    if ((values.agent !== undefined || agentFile !== undefined) && (values.session !== undefined || values.continue === true)) {
      return yield* new UsageError({ message: "--agent/--agent-file choose a new session's agent; they cannot be used with --session or --continue" })
    }
    return {
      cwd: resolve(cwd, values.cwd ?? "."),
      model: values.model,
      agent: values.agent,
      agentFile: agentFile === undefined ? undefined : resolve(cwd, agentFile),
      session: values.session,
      continue: values.continue,
      trustProject: values["trust-project"]
    }
  })
