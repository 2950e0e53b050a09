import { Tool } from "@dsh/tools"
import { Effect } from "effect"
import * as z from "zod"
import { readTextFile, writeFileAtomic } from "./internal/files.ts"
import { resolvePath } from "./PathPolicy.ts"

const parameters = z.object({
  path: z.string().min(1).describe("The file to edit: absolute, or relative to the working directory."),
  old_string: z.string().describe(
    "The exact text to replace, character for character (indentation included, without Read's line-number prefix)."
  ),
  new_string: z.string().describe("The text to put in its place; must differ from old_string."),
  replace_all: z.boolean().optional().describe(
    "Replace every occurrence of old_string. Default false: old_string must then occur exactly once."
  )
})

/** Non-overlapping occurrences, the way split/join will replace them. */
const countOccurrences = (text: string, needle: string): number => text.split(needle).length - 1

export const EditTool = Tool.defineTool({
  name: "Edit",
  description: [
    "Replace exact text in an existing file. old_string must match the file exactly and, unless replace_all",
    "is set, occur exactly once; if it occurs several times, include more surrounding lines to make it unique.",
    "Read the file first. To create a file, use Write."
  ].join(" "),
  parameters,
  needsApproval: true,
  permission: { kind: "edit", path: (params) => params.path },
  summarize: (params) => `Edit ${params.path}${params.replace_all === true ? " (all occurrences)" : ""}`,
  execute: (params, context) =>
    Effect.gen(function*() {
      if (params.old_string === "") return yield* Tool.toolFail("old_string is empty; to create a file, use Write")
      if (params.old_string === params.new_string) {
        return yield* Tool.toolFail("old_string and new_string are the same; nothing would change")
      }
      const file = yield* resolvePath(context.cwd, params.path)
      const text = yield* readTextFile(file.display, file.real)
      const count = countOccurrences(text, params.old_string)
      if (count === 0) {
        return yield* Tool.toolFail(
          `old_string was not found in ${file.display}. It must match exactly, whitespace and indentation included; Read the file and copy the text.`
        )
      }
      if (count > 1 && params.replace_all !== true) {
        return yield* Tool.toolFail(
          `old_string occurs ${count} times in ${file.display}. Add surrounding context to make it unique, or set replace_all to replace all ${count}.`
        )
      }
      // split/join, not String.replace: `$&` and friends in new_string must stay literal.
      const updated = text.split(params.old_string).join(params.new_string)
      yield* writeFileAtomic(file.display, file.real, updated)
      return `Edited ${file.display}: replaced ${count} occurrence${count === 1 ? "" : "s"}.`
    })
})
