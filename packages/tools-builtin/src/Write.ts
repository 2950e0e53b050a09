import { Tool } from "@dsh/tools"
import { Effect } from "effect"
import * as z from "zod"
import { statOrUndefined, writeFileAtomic } from "./internal/files.ts"
import { resolvePath } from "./PathPolicy.ts"

const parameters = z.object({
  path: z.string().min(1).describe("The file to write: absolute, or relative to the working directory."),
  content: z.string().describe("The complete new content of the file.")
})

export const WriteTool = Tool.defineTool({
  name: "Write",
  description: [
    "Write a file, replacing it completely if it exists; missing parent directories are created.",
    "The write is atomic: readers see the old file or the new one, never a half-written one.",
    "Prefer Edit for changing part of an existing file; use Write for new files or full rewrites."
  ].join(" "),
  parameters,
  needsApproval: true,
  permission: { kind: "edit", path: (params) => params.path },
  summarize: (params) => `Write ${params.path} (${Buffer.byteLength(params.content)} bytes)`,
  execute: (params, context) =>
    Effect.gen(function*() {
      const file = yield* resolvePath(context.cwd, params.path)
      const existed = (yield* statOrUndefined(file.display, file.real)) !== undefined
      yield* writeFileAtomic(file.display, file.real, params.content)
      const bytes = Buffer.byteLength(params.content)
      return `${existed ? "Overwrote" : "Created"} ${file.display}: wrote ${bytes} byte${bytes === 1 ? "" : "s"}.`
    })
})
