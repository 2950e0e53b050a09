import { type Records, ReportedOutput, type SubagentError, Subagents, Vocabulary } from "@dsh/subagent"
import { type PermissionSubject, Tool, Toolbox } from "@dsh/tools"
import { Effect } from "effect"
import * as z from "zod"
import { delegationKindOf } from "./DelegationPermission.ts"

export const SUBAGENT_TOOL_NAME = "subagent"

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`

/** The status line appended to every child result: enough to continue or inspect the child. */
export const statusLine = (r: Records.SubagentResult): string =>
  `[subagent ${r.handle} (${r.agent}) · ${r.status} · ${r.usage.totalTokens} tokens · ${seconds(r.durationMs)}` +
  `${r.cost === undefined ? "" : ` · $${r.cost.toFixed(4)}`}]`

export const formatResult = (r: Records.SubagentResult): string => {
  const body = r.output.trim() === "" ? "(the child returned no text)" : r.output
  const notes = r.notes === undefined ? "" : `\nNotes: ${r.notes}`
  const tail = `\n\n${statusLine(r)}${notes}`
  // The status and the notes (why a run failed) must survive the tool output's truncation: a long body is cut first.
  const room = Toolbox.DEFAULT_MAX_OUTPUT_CHARS - tail.length - 100
  const cut = body.length <= room ? body : `${body.slice(0, Math.max(0, room))}\n… [${body.length - room} more characters of the result]`
  return `${cut}${tail}`
}

/** Parameters `subagent` and `swarm` share: model, reasoning effort, timeout, background. */
export const runParams = {
  model: z.string().optional().describe(
    "A model to use instead of the type's or the default: a spec (openai:gpt-4.1), an alias (sonnet, haiku), a vendor id " +
      "(claude-haiku-4-5) or inherit (yours). One that cannot be used is skipped, with a note in the result"
  ),
  thinking: z.enum(["off", "low", "medium", "high"]).optional().describe("How much the child's model should reason before answering"),
  timeoutSeconds: z.number().nonnegative().optional().describe("Wall-clock limit for the child, in seconds; 0: none (default: the session's limit)"),
  background: z.boolean().optional().describe(
    "Return at once with {status: \"accepted\", runId, handle}; the outcome is announced to you when the child ends"
  ),
  isolation: z.enum(["worktree"]).optional().describe(
    "worktree: the child works in a new git worktree of this repository (branch dsh/<handle>), so parallel children never " +
      "overwrite each other's files; removed if the child changed nothing, else kept and named in the result"
  )
}

// Built once: a `subagent` tool is made for every agent context. The default type is applied
// in the handler, since it depends on the context.
const SubagentParams = z.object({
  description: z.string().min(1).describe("A short (3-5 word) label for the task, shown in lists and logs"),
  prompt: z.string().min(1).describe("The complete task for the child, with all the context it needs"),
  agent: z.string().optional().describe("The agent type to use (default: coder, or the only type offered)"),
  ...runParams,
  resultSchema: z.record(z.string(), z.unknown()).optional().describe(
    "A JSON Schema the child's result must match: the child reports JSON that matches it, and this call returns {result: <that JSON>, handle, status, text}"
  ),
  cleanup: z.enum(["keep", "delete"]).optional().describe(
    "What happens to the child's transcript once you have its result: keep (default) archives it after a while; delete archives it at once. Either way you can still continue the child"
  )
})

/** A JSON Schema the `report` tool can check with (it builds its validator the same way); the reason when not. */
const unusableSchema = (schema: Readonly<Record<string, unknown>>): string | undefined => {
  try {
    z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0])
    return undefined
  } catch (e) {
    return e instanceof Error ? e.message : String(e)
  }
}

/**
 * A structured child's result: its reported JSON under `result`, with its handle, status and
 * text; an error result when it ended without reporting JSON.
 */
export const structuredResult = (r: Records.SubagentResult): Tool.ToolOutput => {
  const reported = r.status === "completed" ? ReportedOutput.reportedJsonOf(r.output) : { found: false as const }
  if (!reported.found) return { content: `${formatResult(r)}
The child did not report a structured result (report with json).`, isError: true }
  const at = r.output.lastIndexOf("\n\n")
  const text = at < 0 ? "" : r.output.slice(0, at)
  return { content: JSON.stringify({ result: reported.json, handle: r.handle, status: r.status, text }) }
}

/** The types offered, one line each, for a delegation tool's description. */
export const describeTypes = (types: ReadonlyArray<Vocabulary.AgentType>): string =>
  types.map((t) => `- ${t.name}: ${t.description}${t.definition.whenToUse ? ` (${t.definition.whenToUse})` : ""}`).join("\n")

/** The type a delegation names none uses: `coder` when offered, else the first offered. */
export const defaultTypeOf = (types: ReadonlyArray<Vocabulary.AgentType>): string =>
  types.some((t) => t.name === "coder") ? "coder" : types[0]?.name ?? "coder"

/** What a delegation tool of `parent` offers: its context's service, the types it may use, the default and each one's permission kind. */
export const delegationOffer = (parent: Vocabulary.ParentInfo) =>
  Effect.gen(function*() {
    const subagents = yield* Subagents.Subagents
    const types = yield* subagents.availableTypes(parent)
    const kindOf: (name: string) => PermissionSubject.ToolKind = delegationKindOf(subagents, types)
    return { subagents, types, defaultType: defaultTypeOf(types), kindOf }
  })

/**
 * The model-facing `subagent` tool of `parent`, over the `Subagents` of its context. It offers
 * only the types this context can run and this parent may use; refusals come back as results
 * the model can act on. Several calls in one response run in parallel (through the tree's lane).
 */
export const make = (parent: Vocabulary.ParentInfo) =>
  Effect.gen(function*() {
    const { subagents, types, defaultType, kindOf } = yield* delegationOffer(parent)
    return Tool.defineTool({
      name: SUBAGENT_TOOL_NAME,
      description: "Delegate a focused task to a child agent that works in its own, isolated context and returns only its " +
        "final result. The child sees nothing of this conversation: put everything it needs in the prompt. Several " +
        "subagent calls in one response run in parallel. With background: true the call returns at once and the " +
        "result is announced to you when the child ends.\n\nAgent types:\n" + describeTypes(types),
      parameters: SubagentParams,
      // A delegation is a permission subject like any call: `subagent(<type>)`, asked in the
      // default mode only when the child can write or is another vendor's agent.
      permission: { kind: (p) => kindOf(p.agent ?? defaultType), specifier: (p) => p.agent ?? defaultType },
      summarize: (p) => `${p.agent ?? defaultType}: ${p.description}`,
      execute: (p, context) => {
        const request = {
          prompt: p.prompt,
          description: p.description,
          agent: p.agent ?? defaultType,
          model: p.model,
          thinking: p.thinking,
          timeoutSeconds: p.timeoutSeconds,
          cleanup: p.cleanup,
          resultSchema: p.resultSchema,
          isolation: p.isolation
        }
        const unusable = p.resultSchema === undefined ? undefined : unusableSchema(p.resultSchema)
        if (unusable !== undefined) return Effect.fail(new Tool.ToolError({ message: `resultSchema is not a JSON Schema the child can report against: ${unusable}` }))
        const caller = Vocabulary.callerOf(parent, context)
        const run: Effect.Effect<Tool.ToolOutput, SubagentError.SubagentError> = p.background === true
          ? subagents.spawnBackground(request, caller).pipe(Effect.map((accepted) => ({ content: JSON.stringify(accepted) })))
          : subagents.spawnDetachable(request, caller).pipe(Effect.map((r): Tool.ToolOutput =>
            r.status === "accepted"
              // Moved to the background while it ran (Ctrl+B, detachChild): announced when it ends.
              ? { content: JSON.stringify({ ...r, note: "moved to the background by the user; its outcome is announced to you when it ends" }) }
              : p.resultSchema !== undefined
              ? structuredResult(r)
              : { content: formatResult(r), isError: r.status !== "completed" }
          ))
        return run.pipe(Effect.mapError((e) => new Tool.ToolError({ message: e.message })))
      }
    })
  })
