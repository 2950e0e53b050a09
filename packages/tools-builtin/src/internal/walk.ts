import { isAbsolute } from "node:path"
import { Tool } from "@dsh/tools"
import { Effect } from "effect"
import { fsError } from "./files.ts"

/** Never searched: version-control internals and installed dependencies. */
export const IGNORED_DIRECTORIES: ReadonlyArray<string> = ["**/.git/**", "**/node_modules/**"]

/**
 * Files under `dir` matching `pattern`, relative to `dir`. Symlinks are not followed, so a
 * link cannot lead the walk outside the allowed directories.
 */
export const listFiles = (display: string, dir: string, pattern: string): Effect.Effect<Array<string>, Tool.ToolError> =>
  Effect.gen(function*() {
    if (isAbsolute(pattern) || pattern.split(/[\\/]/).includes("..")) {
      return yield* Tool.toolFail(`the pattern "${pattern}" must be relative and stay inside the searched directory; set path to search elsewhere`)
    }
    return yield* Effect.tryPromise({
      // Loaded on the first search, not when the tools are built (start-up speed).
      try: async () => (await import("tinyglobby")).glob(pattern, { cwd: dir, ignore: [...IGNORED_DIRECTORIES], dot: true, onlyFiles: true, followSymbolicLinks: false }),
      catch: (error) => fsError(display, error)
    })
  })
