import { type Records, type Subagents, type Vocabulary } from "@dsh/subagent"
import type { Events } from "@dsh/core"
import { Tool } from "@dsh/tools"
import { Effect } from "effect"
import * as z from "zod"

/**
 * `sessions_history` (openclaw's tool of that name): a descendant's transcript, paged, by its
 * handle or by the transcript path its announcement names. Confined to the caller's own session
 * tree: an agent reads only its descendants, never a sibling, an ancestor or itself.
 */

const MAX_LIMIT = 200
const CLIP = 2000

const HistoryParams = z.object({
  handle: z.string().min(1).describe("The subagent's handle (e.g. explore-1), or the transcript path from its announcement"),
  offset: z.number().int().min(0).default(0).describe("Skip this many entries from the start"),
  limit: z.number().int().min(1).max(MAX_LIMIT).default(50).describe("At most this many entries"),
  tools: z.boolean().default(false).describe("Include tool calls and their results")
})

const clip = (text: string) => (text.length > CLIP ? `${text.slice(0, CLIP)}… (${text.length - CLIP} more characters)` : text)

/** One transcript record as a line, or undefined for records a reader of the history does not need. */
const lineOf = (r: Events.WireRecord, tools: boolean): string | undefined => {
  switch (r.type) {
    case "message":
      if (r.message.role === "user" || (r.message.role === "assistant" && r.message.content !== "")) return `${r.message.role}: ${clip(r.message.content)}`
      return undefined
    case "tool-call":
      return tools ? `→ ${r.name} ${clip(r.input)}` : undefined
    case "tool-result":
      return tools ? `← ${r.name}${r.isError ? " (error)" : ""}: ${clip(r.output)}` : undefined
    case "notice":
      return `[${r.level}] ${r.message}`
    default:
      return undefined
  }
}

const findDescendant = (subagents: Subagents.SubagentsShape, caller: Vocabulary.ParentInfo, key: string): Records.SubagentDescriptor | undefined =>
  subagents.list(caller.handle).find((d) => d.handle === key || (d.transcript !== undefined && d.transcript === key))

export const makeHistoryTool = (subagents: Subagents.SubagentsShape, caller: Vocabulary.ParentInfo) =>
  Tool.defineTool({
    name: "sessions_history",
    description: "Read the transcript of one of your subagents (or theirs), paged: what it was asked, what it answered " +
      "and, with tools: true, its tool calls. Give its handle or the transcript path from its announcement.",
    parameters: HistoryParams,
    summarize: (p) => `${p.handle} from ${p.offset}`,
    execute: (p) =>
      Effect.gen(function*() {
        const d = findDescendant(subagents, caller, p.handle.trim())
        if (d === undefined) return yield* new Tool.ToolError({ message: `${p.handle} is not one of your subagents (list_agents lists them)` })
        const { tree } = subagents
        const store = tree.session === undefined
          ? tree.memoryStores.get(d.handle)
          : yield* tree.session.child(d.handle).pipe(Effect.mapError((e) => new Tool.ToolError({ message: `cannot open ${d.handle}'s transcript: ${e.message}` })))
        const { records } = yield* store.transcript.read.pipe(Effect.mapError((e) => new Tool.ToolError({ message: `cannot read ${d.handle}'s transcript: ${e.message}` })))
        const lines = records.flatMap((r) => lineOf(r, p.tools) ?? [])
        const page = lines.slice(p.offset, p.offset + p.limit)
        const head = `${d.handle} (${d.agent}) is ${d.status}; entries ${page.length === 0 ? 0 : p.offset + 1}–${p.offset + page.length} of ${lines.length}` +
          (d.transcript === undefined ? "" : `; transcript ${d.transcript}`)
        const more = p.offset + page.length < lines.length ? `\n(more: offset ${p.offset + page.length})` : ""
        return `${head}\n\n${page.length === 0 ? "(no entries here)" : page.join("\n")}${more}`
      })
  })
