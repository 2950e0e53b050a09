import { type Subagents, Vocabulary } from "@dsh/subagent"
import { Tool } from "@dsh/tools"
import { Effect } from "effect"
import { z } from "zod"
import { delegationOffer, describeTypes, runParams } from "./SubagentTool.ts"

export const SWARM_TOOL_NAME = "swarm"

/** Most items one swarm may fan out over (Kimi Code's AgentSwarm has the same bound). */
export const MAX_SWARM_ITEMS = 128

/** How much of each child's full result follows the table (the table itself is always whole). */
const RESULT_CHARS = 1_500

const SwarmParams = z.object({
  prompt: z.string().min(1).describe(
    "The task for every child, with {{item}} where each item goes (and {{index}}, its 1-based number). " +
      "Without {{item}} the item is appended. Each child sees only its own prompt"
  ),
  items: z.array(z.string().min(1)).min(1).max(MAX_SWARM_ITEMS).describe(`The items to fan out over, 1 to ${MAX_SWARM_ITEMS}: one child each`),
  agent: z.string().optional().describe("The agent type every child runs as (default: coder, or the only type offered)"),
  description: z.string().optional().describe("A short label for the children, with {{item}} if you like (default: the item)"),
  ...runParams
})

/** `{{item}}` and `{{index}}` filled in; a template without `{{item}}` gets the item appended. */
export const renderSwarmPrompt = (template: string, item: string, index: number): string => {
  const filled = template.replaceAll("{{item}}", item).replaceAll("{{index}}", String(index))
  return template.includes("{{item}}") ? filled : `${filled}\n\n${item}`
}

const oneLine = (text: string, max: number): string => {
  const line = text.replace(/\s+/g, " ").trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

const cell = (text: string, max: number) => oneLine(text, max).replaceAll("|", "\\|")

/** One line of a swarm's table. */
export interface SwarmRow {
  readonly item: string
  readonly handle: string
  readonly status: string
  readonly result: string
  readonly notes?: string | undefined
  readonly output?: string | undefined
}

const rowOf = (item: string, entry: Subagents.BatchEntry): SwarmRow => {
  switch (entry._tag) {
    case "Settled": {
      const r = entry.result
      const summary = r.output.trim() === "" ? `(no text)${r.notes === undefined ? "" : ` ${r.notes}`}` : r.output
      return { item, handle: r.handle, status: r.status, result: summary, notes: r.notes, output: r.output }
    }
    case "Accepted":
      return { item, handle: entry.run.handle, status: "accepted", result: `runId ${entry.run.runId}` }
    case "Refused":
      return { item, handle: "-", status: "refused", result: entry.error.message, notes: entry.error.message }
  }
}

/**
 * The table a swarm returns (item, handle, status, one-line result), then the items that did
 * not complete, then each child's result (bounded), so the model can act on all of it at once.
 */
export const formatSwarm = (agent: string, rows: ReadonlyArray<SwarmRow>, background: boolean): string => {
  const counts = new Map<string, number>()
  for (const r of rows) counts.set(r.status, (counts.get(r.status) ?? 0) + 1)
  const tally = [...counts].map(([status, n]) => `${n} ${status}`).join(", ")
  const lines = [
    `Swarm of ${rows.length} × ${agent}: ${tally}.`,
    "",
    "| # | item | handle | status | result |",
    "|---|------|--------|--------|--------|",
    ...rows.map((r, i) => `| ${i + 1} | ${cell(r.item, 60)} | ${r.handle} | ${r.status} | ${cell(r.result, 100)} |`)
  ]
  const failed = rows.map((r, i) => ({ r, i })).filter(({ r }) => r.status !== "completed" && r.status !== "accepted")
  if (failed.length > 0) {
    lines.push("", `Not completed (${failed.length}):`)
    for (const { r, i } of failed) lines.push(`- #${i + 1} ${oneLine(r.item, 60)} (${r.handle}): ${r.status}${r.notes === undefined ? "" : `: ${oneLine(r.notes, 300)}`}`)
  }
  // What completed children's results say beside their text (a worktree kept with their changes…).
  const noted = rows.map((r, i) => ({ r, i })).filter(({ r }) => r.status === "completed" && r.notes !== undefined)
  if (noted.length > 0) {
    lines.push("", `Notes (${noted.length}):`)
    for (const { r, i } of noted) lines.push(`- #${i + 1} ${oneLine(r.item, 60)} (${r.handle}): ${oneLine(r.notes!, 300)}`)
  }
  if (background) {
    lines.push("", "Each child's outcome is announced to you when it ends; `wait` collects them sooner.")
    return lines.join("\n")
  }
  lines.push("", "Every child stays continuable: send_message to its handle for more.")
  rows.forEach((r, i) => {
    if (r.output === undefined || r.output.trim() === "") return
    const text = r.output.length > RESULT_CHARS ? `${r.output.slice(0, RESULT_CHARS)}… [${r.output.length - RESULT_CHARS} more characters]` : r.output
    lines.push("", `## ${i + 1}. ${oneLine(r.item, 80)} (${r.handle})`, text.trim())
  })
  return lines.join("\n")
}

/**
 * The model-facing `swarm` tool of `parent` (Kimi Code's AgentSwarm): one agent type and one
 * prompt template over up to 128 items, a child per item, run through the tree's lane and
 * counted against the session's children limit. It returns a table when all have settled;
 * with `background: true` it returns the accepted runs at once and each outcome is announced.
 * The parent's `subagents` allow-list applies as for `subagent`.
 */
export const make = (parent: Vocabulary.ParentInfo) =>
  Effect.gen(function*() {
    const { subagents, types, defaultType, kindOf } = yield* delegationOffer(parent)
    return Tool.defineTool({
      name: SWARM_TOOL_NAME,
      description: `Fan one task out over a list of items: a child per item (up to ${MAX_SWARM_ITEMS}), all of the same agent ` +
        "type, each working in its own isolated context on its own prompt (the template with the item filled in). They run " +
        "in parallel (as many at once as the harness allows) and you get a table of item, handle, status and one-line " +
        "result once all have finished, then each result. Use it for many independent, similar tasks (one file, module or " +
        "question each). With background: true it returns at once and each outcome is announced.\n\nAgent types:\n" +
        describeTypes(types),
      parameters: SwarmParams,
      // `swarm(<type>)`: asked like the `subagent` call it fans out (see DelegationPermission).
      permission: { kind: (p) => kindOf(p.agent ?? defaultType), specifier: (p) => p.agent ?? defaultType },
      summarize: (p) => `${p.agent ?? defaultType} × ${p.items.length}`,
      execute: (p, context) =>
        Effect.gen(function*() {
          const agent = p.agent ?? defaultType
          const label = p.description ?? "{{item}}"
          const requests = p.items.map((item, i): Vocabulary.SpawnRequest => ({
            prompt: renderSwarmPrompt(p.prompt, item, i + 1),
            description: oneLine(label.replaceAll("{{item}}", item).replaceAll("{{index}}", String(i + 1)), 80),
            agent,
            model: p.model,
            thinking: p.thinking,
            timeoutSeconds: p.timeoutSeconds,
            isolation: p.isolation
          }))
          const entries = yield* subagents.spawnAll(requests, Vocabulary.callerOf(parent, context), { background: p.background === true, detachable: true }).pipe(
            Effect.mapError((e) => new Tool.ToolError({ message: `swarm refused: ${e.message}` }))
          )
          const rows = entries.map((entry, i) => rowOf(p.items[i]!, entry))
          const anyDone = rows.some((r) => r.status === "completed" || r.status === "accepted")
          return { content: formatSwarm(agent, rows, p.background === true), ...(anyDone ? {} : { isError: true }) }
        })
    })
  })
