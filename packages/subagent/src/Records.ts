import { AgentHost } from "@dsh/agent"
import { Events, Usage } from "@dsh/core"
import { Effect, Schema, Struct } from "effect"
import { WorktreeRecord } from "./Worktrees.ts"

/**
 * What the subagent family persists, as Schemas: decoded wherever it is read back (a record
 * another version or a crash left behind is skipped with a warning, never cast and trusted).
 */

/** Provider-neutral reasoning effort (`ModelRequest.thinking`). */
export const ThinkingLevel = Schema.Literals(["off", "low", "medium", "high"])
export type ThinkingLevel = typeof ThinkingLevel.Type

export const DescriptorStatus = Schema.Literals([...Events.RunStatus.literals, "queued", "running"])
export type DescriptorStatus = typeof DescriptorStatus.Type

/**
 * A provider's opaque, versioned continuation data. The service stores and routes it and
 * checks `provider` and `version` before a `continue`; only the provider looks inside, through
 * the Schema it declares (`SubagentProvider.continuation`).
 */
export const ContinuationEnvelope = Schema.Struct({
  provider: Schema.String,
  version: Schema.Number,
  data: Schema.Unknown
})
export type ContinuationEnvelope = typeof ContinuationEnvelope.Type

/**
 * What happens to a child's transcript once its outcome was announced: `keep` (default) leaves it
 * until `archive_after_minutes` have passed; `delete` moves it into the session's archive at once.
 * Either way the child stays listable and continuable (an archived transcript is restored on demand).
 */
export const CleanupMode = Schema.Literals(["keep", "delete"])
export type CleanupMode = typeof CleanupMode.Type

/** What `state.json` → `subagents` keeps of every child, so lists, logs and resumes survive a restart. */
export const SubagentDescriptor = Schema.Struct({
  ...AgentHost.ChildIdentity.fields,
  status: DescriptorStatus,
  description: Schema.String,
  runId: Schema.String,
  createdAt: Schema.String,
  updatedAt: Schema.String,
  usage: Usage.Usage,
  /** Where the child's transcript lives (a path for the file store). */
  transcript: Schema.optional(Schema.String),
  continuation: Schema.optional(ContinuationEnvelope),
  lastResult: Schema.optional(Schema.String),
  /** Whether the latest run was a background run (its outcome is announced). */
  background: Schema.optional(Schema.Boolean),
  /** The model its latest run used (`provider:model`); a continued child keeps it. */
  model: Schema.optional(Schema.String),
  /** The reasoning effort its latest run was asked for. */
  thinking: Schema.optional(ThinkingLevel),
  /** What its latest run cost in US dollars, where pricing is configured. */
  cost: Schema.optional(Schema.Number),
  /** The latest run's timeline: asked for, given its lane slot, ended. */
  queuedAt: Schema.optional(Schema.String),
  startedAt: Schema.optional(Schema.String),
  endedAt: Schema.optional(Schema.String),
  /** The latest run's cleanup (`keep` when absent). */
  cleanup: Schema.optional(CleanupMode),
  /** Set while the child's transcript is in the session's archive. */
  archivedAt: Schema.optional(Schema.String),
  /** The git worktree its run left changes in (`isolation: "worktree"`); absent when none was kept. */
  worktree: Schema.optional(WorktreeRecord)
})
export type SubagentDescriptor = typeof SubagentDescriptor.Type

/** The result a parent receives. Every result carries the child's handle, failures included. */
export const SubagentResult = Schema.Struct({
  status: Events.RunStatus,
  /** The child's final message (or the result it reported); partial output when it was stopped. */
  output: Schema.String,
  usage: Usage.Usage,
  /** Why it failed, stderr tails, protocol faults: what a parent needs to decide what next. */
  notes: Schema.optional(Schema.String),
  handle: Schema.String,
  runId: Schema.String,
  agent: Schema.String,
  provider: Schema.String,
  /** US dollars, where pricing is configured for the model(s) it used. */
  cost: Schema.optional(Schema.Number),
  /** The model it ran with (`provider:model`). */
  model: Schema.optional(Schema.String),
  durationMs: Schema.Number,
  /** Where the child's transcript lives (a path for the file store). */
  transcript: Schema.optional(Schema.String),
  /** The session the child's records live in (its session key is `<sessionId>:subagent:<handle>`). */
  sessionId: Schema.optional(Schema.String),
  /** A background run's announce step reply (see `ANNOUNCE_PROMPT`); `ANNOUNCE_SKIP` sends none. */
  announcement: Schema.optional(Schema.String)
})
export type SubagentResult = typeof SubagentResult.Type

/** `tasks/<runId>.json`: a background run's lifecycle, written before anything is announced. */
export const TaskRecord = Schema.Struct({
  runId: Schema.String,
  ...Struct.pick(AgentHost.ChildIdentity.fields, ["handle", "agent", "parent"]),
  status: Schema.Literals([...Events.RunStatus.literals, "running"]),
  createdAt: Schema.String,
  endedAt: Schema.optional(Schema.String),
  result: Schema.optional(SubagentResult),
  /** Set once the outcome reached the parent (announced, or consumed by `wait`); never announced twice. */
  delivered: Schema.Boolean
})
export type TaskRecord = typeof TaskRecord.Type

/**
 * `agents/<handle>/meta.json`: how a child's latest run went, beside its transcript. Every
 * driver writes this one shape; out-of-process drivers fill the process fields.
 */
export const ChildMeta = Schema.Struct({
  ...AgentHost.ChildIdentity.fields,
  runId: Schema.String,
  /** The model spec the child ran with (for out-of-process children, what it was asked to use). */
  model: Schema.String,
  /** The reasoning effort it was asked for. */
  thinking: Schema.optional(ThinkingLevel),
  status: Schema.Literals(["starting", "running", ...Events.RunStatus.literals]),
  startedAt: Schema.String,
  endedAt: Schema.optional(Schema.String),
  notes: Schema.optional(Schema.String),
  /** Out of process: the command line, its process id and working directory. */
  command: Schema.optional(Schema.String),
  pid: Schema.optional(Schema.Number),
  cwd: Schema.optional(Schema.String),
  /** Out of process: the child's own session id (an ACP session, a dsh SDK session). */
  sessionId: Schema.optional(Schema.String),
  /** Out of process: who the child said it is (ACP `agentInfo`, the SDK's `serverInfo`). */
  agentInfo: Schema.optional(Schema.Unknown)
})
export type ChildMeta = typeof ChildMeta.Type

const decodeDescriptorOnce = Schema.decodeUnknownResult(SubagentDescriptor)

/**
 * Decoded records by the frozen value they were decoded from. A store hands out frozen snapshots
 * whose unchanged entries are shared between reads, so with thousands of children each record is
 * decoded once, not on every read of the state (which had made a cluster run O(children²)). A
 * memo of a pure function over immutable values: weak, so it holds nothing a state does not.
 */
const decodedOf = new WeakMap<object, ReturnType<typeof decodeDescriptorOnce>>()

const decodeDescriptor = (value: unknown): ReturnType<typeof decodeDescriptorOnce> => {
  if (typeof value !== "object" || value === null || !Object.isFrozen(value)) return decodeDescriptorOnce(value)
  const known = decodedOf.get(value)
  if (known !== undefined) return known
  const decoded = decodeDescriptorOnce(value)
  decodedOf.set(value, decoded)
  return decoded
}
const decodeTask = Schema.decodeUnknownResult(TaskRecord)

/** Decoded records, and one warning per record that did not decode (it is skipped). */
export interface Decoded<A> {
  readonly records: ReadonlyArray<A>
  readonly warnings: ReadonlyArray<string>
}

const firstLine = (message: string) => message.split("\n")[0] ?? message

/** The children recorded in a session's `state.json` (`subagents`), oldest first. */
export const decodeDescriptors = (state: Readonly<Record<string, unknown>>): Decoded<SubagentDescriptor> => {
  const decoded = decodeAll(state)
  decoded.records.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.handle.localeCompare(b.handle))
  return decoded
}

/**
 * `decodeDescriptors` in the stored map's order: for a reader that looks records up by handle
 * and follows every change of a state with thousands of children, the sort (with
 * `localeCompare`, a runner's costliest line of dsh code in a 1,000-child profile) is wasted.
 */
export const decodeDescriptorsUnordered = (state: Readonly<Record<string, unknown>>): Decoded<SubagentDescriptor> => decodeAll(state)

/** One stored entry of `subagents` decoded, or `undefined` when it is not a child's record. */
export const decodeDescriptorEntry = (value: unknown): SubagentDescriptor | undefined => {
  const decoded = decodeDescriptor(value)
  return decoded._tag === "Success" ? decoded.success : undefined
}

const decodeAll = (state: Readonly<Record<string, unknown>>): { readonly records: Array<SubagentDescriptor>; readonly warnings: ReadonlyArray<string> } => {
  const raw = state.subagents
  if (raw === undefined) return { records: [], warnings: [] }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return { records: [], warnings: ["state.json: \"subagents\" is not an object; no child could be read"] }
  }
  const records: Array<SubagentDescriptor> = []
  const warnings: Array<string> = []
  for (const [key, value] of Object.entries(raw)) {
    const decoded = decodeDescriptor(value)
    if (decoded._tag === "Success") records.push(decoded.success)
    else warnings.push(`state.json: skipped the record of child "${key}": ${firstLine(decoded.failure.message)}`)
  }
  return { records, warnings }
}

/** Task records as a store returns them (`readTasks`), each decoded. */
export const decodeTasks = (raw: ReadonlyArray<unknown>): Decoded<TaskRecord> => {
  const records: Array<TaskRecord> = []
  const warnings: Array<string> = []
  for (const value of raw) {
    const decoded = decodeTask(value)
    if (decoded._tag === "Success") records.push(decoded.success)
    else {
      const id = typeof value === "object" && value !== null && "runId" in value ? String(value.runId) : "?"
      warnings.push(`tasks/${id}.json: skipped: ${firstLine(decoded.failure.message)}`)
    }
  }
  return { records, warnings }
}

/** Logs each warning at Warn (the CLI sends logs to stderr and the session log, never stdout). */
export const logWarnings = (warnings: ReadonlyArray<string>): Effect.Effect<void> =>
  Effect.forEach(warnings, (w) => Effect.logWarning(w), { discard: true })
