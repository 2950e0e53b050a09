import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { Tool } from "@dsh/tools"
import { Effect } from "effect"
import * as z from "zod"
import { isBinary, statOrUndefined } from "./internal/files.ts"
import { listFiles } from "./internal/walk.ts"
import { displayPath, placeName, resolvePath } from "./PathPolicy.ts"

export const GREP_DEFAULT_MAX_RESULTS = 200
/** Matching lines are cut here in content mode. */
const MAX_LINE_CHARS = 500

const parameters = z.object({
  pattern: z.string().min(1).describe('A JavaScript regular expression, e.g. "function\\s+\\w+" or "TODO|FIXME".'),
  path: z.string().optional().describe("A file or directory to search. Default: the working directory."),
  glob: z.string().optional().describe(
    'Only search files matching this glob, e.g. "*.ts" (without a slash it matches at any depth) or "src/**/*.py".'
  ),
  ignoreCase: z.boolean().optional().describe("Match case-insensitively. Default false."),
  outputMode: z.enum(["content", "files_with_matches", "count"]).optional().describe(
    '"files_with_matches" (default) lists files that match; "content" prints file:line:text for each matching line; "count" prints file:count.'
  ),
  maxResults: z.number().int().min(1).max(5000).optional().describe(
    `Stop after this many results (files, lines or counts). Default ${GREP_DEFAULT_MAX_RESULTS}.`
  )
})

const compile = (pattern: string, ignoreCase: boolean): Effect.Effect<RegExp, Tool.ToolError> =>
  Effect.try({
    try: () => new RegExp(pattern, ignoreCase ? "i" : ""),
    catch: (error) =>
      new Tool.ToolError({
        message: `invalid regular expression /${pattern}/: ${error instanceof Error ? error.message : String(error)}`
      })
  })

/** A searched file's lines, or undefined for binary or unreadable files (skipped, like grep -I). */
const textLines = (path: string): Effect.Effect<Array<string> | undefined> =>
  Effect.promise(() =>
    readFile(path).then((bytes) => isBinary(bytes) ? undefined : bytes.toString("utf8").split(/\r?\n/), () => undefined)
  )

export const GrepTool = Tool.defineTool({
  name: "Grep",
  description: [
    "Search file contents with a JavaScript regular expression. Walks the given directory (default: the working",
    "directory), skipping binary files, .git and node_modules; filter files with glob. outputMode",
    '"files_with_matches" (default) lists matching files, "content" prints file:line:text, "count" prints',
    "file:count. Paths are relative to the working directory, ready for Read. Use Glob to find files by name."
  ].join(" "),
  parameters,
  execute: (params, context) =>
    Effect.gen(function*() {
      const regex = yield* compile(params.pattern, params.ignoreCase === true)
      const mode = params.outputMode ?? "files_with_matches"
      const max = params.maxResults ?? GREP_DEFAULT_MAX_RESULTS
      const target = yield* resolvePath(context.cwd, params.path ?? ".")
      const info = yield* statOrUndefined(target.display, target.real)
      if (info === undefined) return yield* Tool.toolFail(`${target.display} does not exist`)
      let files: Array<string>
      if (info.isDirectory()) {
        const glob = params.glob === undefined ? "**/*" : params.glob.includes("/") ? params.glob : `**/${params.glob}`
        files = (yield* listFiles(target.display, target.real, glob)).sort().map((f) => join(target.absolute, f))
      } else {
        files = [target.absolute]
      }
      const results: Array<string> = []
      let capped = false
      for (const file of files) {
        if (results.length >= max) {
          capped = true
          break
        }
        const lines = yield* textLines(file)
        if (lines === undefined) continue
        const shown = displayPath(context.cwd, file)
        if (mode === "content") {
          for (let i = 0; i < lines.length; i++) {
            const line = lines[i]!
            if (!regex.test(line)) continue
            if (results.length >= max) {
              capped = true
              break
            }
            results.push(`${shown}:${i + 1}:${line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line}`)
          }
        } else {
          const count = lines.filter((line) => regex.test(line)).length
          if (count > 0) results.push(mode === "count" ? `${shown}:${count}` : shown)
        }
      }
      if (results.length === 0) return `No matches for /${params.pattern}/ in ${placeName(target.display)}.`
      return capped
        ? `${results.join("\n")}\n… stopped at ${max} results; narrow the pattern, path or glob, or raise maxResults.`
        : results.join("\n")
    })
})
