import { Effect } from "effect"
import { stat } from "node:fs/promises"
import { UsageError } from "./CliError.ts"

/** A `--cwd` that does not exist is bad input (exit 2), found before anything is written. */
export const checkDirectory = (dir: string) =>
  Effect.tryPromise(() => stat(dir)).pipe(
    Effect.flatMap((s) => (s.isDirectory() ? Effect.void : Effect.fail(new Error("not a directory")))),
    Effect.mapError(() => new UsageError({ message: `--cwd ${dir}: no such directory` }))
  )
