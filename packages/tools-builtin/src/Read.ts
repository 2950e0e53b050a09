import { Tool } from "@dsh/tools"
import { Effect } from "effect"
import * as z from "zod"
import { readTextFile } from "./internal/files.ts"
import { resolvePath } from "./PathPolicy.ts"

/** Lines returned when the model gives no `limit`. */
export const READ_DEFAULT_LIMIT = 2000
/** Longer lines are cut, so one minified file cannot fill the context. */
export const READ_MAX_LINE_CHARS = 2000

const parameters = z.object({
  path: z.string().min(1).describe("The file to read: absolute, or relative to the working directory."),
  offset: z.number().int().min(1).optional().describe(
    "The 1-based line number to start at. Give it (with limit) to page through long files."
  ),
  limit: z.number().int().min(1).optional().describe(`How many lines to return. Default ${READ_DEFAULT_LIMIT}.`)
})

/** `cat -n` style: the line number right-aligned in six columns, a tab, then the text. */
const numbered = (n: number, text: string): string =>
  `${String(n).padStart(6)}\t${
    text.length > READ_MAX_LINE_CHARS ? `${text.slice(0, READ_MAX_LINE_CHARS)}… [line cut at ${READ_MAX_LINE_CHARS} characters]` : text
  }`

export const ReadTool = Tool.defineTool({
  name: "Read",
  description: [
    "Read a text file from the local file system.",
    `Returns numbered lines (cat -n style: line number, tab, text), up to ${READ_DEFAULT_LIMIT} lines from the start by default;`,
    "use offset and limit to read a specific part of a long file. Lines longer than",
    `${READ_MAX_LINE_CHARS} characters are cut. Binary files and directories are refused (use Glob to list a directory).`,
    "Read a file before you Edit it, so that old_string matches the file exactly (without the line-number prefix)."
  ].join(" "),
  parameters,
  permission: { kind: "read", path: (params) => params.path },
  execute: Effect.fnUntraced(function*(params, context) {
    const file = yield* resolvePath(context.cwd, params.path)
    const text = yield* readTextFile(file.display, file.real)
    if (text === "") return `${file.display} is empty.`
    const lines = text.split(/\r?\n/)
    if (lines.at(-1) === "") lines.pop()
    const start = params.offset ?? 1
    if (start > lines.length) {
      return yield* Tool.toolFail(`offset ${start} is past the end of ${file.display}, which has ${lines.length} lines`)
    }
    const end = Math.min(lines.length, start - 1 + (params.limit ?? READ_DEFAULT_LIMIT))
    const body = lines.slice(start - 1, end).map((line, i) => numbered(start + i, line)).join("\n")
    const more = lines.length - end
    return more > 0
      ? `${body}\n… ${more} more lines (${lines.length} in total). Read on with offset=${end + 1}.`
      : body
  })
})
