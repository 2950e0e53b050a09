import { stat } from "node:fs/promises"
import { join } from "node:path"
import { Tool } from "@dsh/tools"
import { Effect } from "effect"
import * as z from "zod"
import { statOrUndefined } from "./internal/files.ts"
import { listFiles } from "./internal/walk.ts"
import { placeName, resolvePath } from "./PathPolicy.ts"

/** At most this many paths are listed; the rest are counted. */
export const GLOB_MAX_RESULTS = 500

const parameters = z.object({
  pattern: z.string().min(1).describe(
    'A glob pattern relative to the searched directory, e.g. "**/*.ts" or "src/**/test_*.py". Braces work: "*.{js,ts}".'
  ),
  path: z.string().optional().describe("The directory to search. Default: the working directory.")
})

export const GlobTool = Tool.defineTool({
  name: "Glob",
  description: [
    "Find files by name with a glob pattern. Returns matching file paths relative to the searched directory,",
    `most recently modified first, at most ${GLOB_MAX_RESULTS}. .git and node_modules are skipped, dotfiles included.`,
    "Use Grep to search file contents."
  ].join(" "),
  parameters,
  execute: (params, context) =>
    Effect.gen(function*() {
      const dir = yield* resolvePath(context.cwd, params.path ?? ".")
      const info = yield* statOrUndefined(dir.display, dir.real)
      if (info === undefined) return yield* Tool.toolFail(`${dir.display} does not exist`)
      if (!info.isDirectory()) return yield* Tool.toolFail(`${dir.display} is a file, not a directory; give a directory as path`)
      const files = yield* listFiles(dir.display, dir.real, params.pattern)
      if (files.length === 0) return `No files match "${params.pattern}" in ${placeName(dir.display)}.`
      // A file that vanished since the walk sorts last instead of failing the search.
      const withTimes = yield* Effect.promise(() =>
        Promise.all(files.map((f) => stat(join(dir.real, f)).then((s) => s.mtimeMs, () => 0).then((mtime) => ({ f, mtime }))))
      )
      withTimes.sort((a, b) => b.mtime - a.mtime || a.f.localeCompare(b.f))
      const shown = withTimes.slice(0, GLOB_MAX_RESULTS).map((x) => x.f)
      const header = dir.display === "." ? "" : `(paths relative to ${dir.display})\n`
      const more = files.length - shown.length
      return `${header}${shown.join("\n")}${
        more > 0 ? `\n… ${more} more files not shown (${files.length} matched). Use a narrower pattern or path.` : ""
      }`
    })
})
