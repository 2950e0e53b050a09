import { Effect } from "effect"
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
