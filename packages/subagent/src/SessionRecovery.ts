import type { Events, Usage } from "@dsh/core"
import type { SessionError, SessionStore } from "@dsh/session"
import { Clock, Effect, Schema } from "effect"
import { ChildMeta, type DescriptorStatus, type SubagentDescriptor, TaskRecord } from "./Records.ts"

/** What a transcript cannot tell and the caller decides: the host's defaults for a new session. */
export interface RecoveryDefaults {
  readonly agent: string
  readonly cwd: string
  readonly model: string
}

/** A rebuilt `state.json`, and what it could not recover (for the user's notice). */
export interface RebuiltState {
  readonly state: SessionStore.SessionState
  readonly children: number
  readonly notes: ReadonlyArray<string>
}

const decodeMeta = Schema.decodeUnknownResult(ChildMeta)
const decodeTask = Schema.decodeUnknownResult(TaskRecord)

const zero: Usage.Usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 }
const add = (a: Usage.Usage, b: Usage.Usage): Usage.Usage => ({
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
  totalTokens: a.totalTokens + b.totalTokens
})

/** The session's status from its main transcript: how its last turn ended (`idle` before any). */
const sessionStatus = (records: ReadonlyArray<Events.WireRecord>): SessionStore.SessionStatus => {
  const end = records.findLast((r) => r.type === "turn-end")
  if (end === undefined || end.type !== "turn-end") return "idle"
  return end.status === "completed" || end.status === "cancelled" ? end.status : "failed"
}

/** A child recorded as starting or running in a session no process runs is lost. */
const descriptorStatus = (status: ChildMeta["status"]): DescriptorStatus =>
  status === "starting" || status === "running" ? "lost" : status

type Start = Extract<Events.WireRecord, { type: "subagent-start" }>
type End = Extract<Events.WireRecord, { type: "subagent-end" }>

/**
 * Rebuilds a session's `state.json` from what is left of it: the main transcript (times, how the
 * last turn ended), every child's `meta.json` and transcript, the `subagent-start`/`subagent-end`
 * events of its parent (description, result, usage) and the background-run records. The bound
 * agent and model are not in any transcript: `defaults` gives them (the host's defaults). Meant
 * for `SessionStore.recover`; it reads, never writes.
 */
export const rebuildState = (session: SessionStore.SessionHandle, defaults: RecoveryDefaults): Effect.Effect<RebuiltState, SessionError.SessionError> =>
  Effect.gen(function*() {
    const notes: Array<string> = []
    const main = (yield* session.transcript.read).records
    const names = yield* session.children
    const children = yield* Effect.forEach(names, (name) =>
      Effect.gen(function*() {
        const child = yield* session.child(name)
        const meta = decodeMeta(yield* child.readMeta)
        const records = (yield* child.transcript.read).records
        return { name, child, meta, records }
      }), { concurrency: 8 })
    // Every agent's transcript names the children it started: grandchildren are in their parent's.
    const all = [main, ...children.map((c) => c.records)].flat()
    const starts = new Map(all.filter((r): r is Start => r.type === "subagent-start").map((r) => [r.runId, r]))
    const ends = new Map(all.filter((r): r is End => r.type === "subagent-end").map((r) => [r.runId, r]))
    const tasks = new Map<string, TaskRecord>()
    for (const raw of yield* session.readTasks) {
      const task = decodeTask(raw)
      if (task._tag === "Success") tasks.set(task.success.runId, task.success)
    }
    const subagents: Record<string, SubagentDescriptor> = {}
    for (const { name, child, meta, records } of children) {
      if (meta._tag === "Failure") {
        notes.push(`child ${name}: no readable meta.json, not listed`)
        continue
      }
      const m = meta.success
      const start = starts.get(m.runId)
      const end = ends.get(m.runId)
      const task = tasks.get(m.runId)
      const usage = end?.usage ?? records.reduce((u, r) => (r.type === "usage" ? add(u, r.usage) : u), zero)
      const lastResult = end?.result ?? task?.result?.output
      subagents[name] = {
        handle: m.handle,
        agent: m.agent,
        provider: m.provider,
        parent: m.parent,
        depth: m.depth,
        status: end?.status ?? descriptorStatus(m.status),
        description: start?.description ?? "",
        runId: m.runId,
        // Its parent recorded the start when it was asked for (queued), the meta when it ran.
        createdAt: start?.ts ?? m.startedAt,
        updatedAt: m.endedAt ?? m.startedAt,
        ...(start === undefined ? {} : { queuedAt: start.ts }),
        usage,
        transcript: child.transcript.location,
        model: m.model,
        startedAt: m.startedAt,
        ...(m.endedAt === undefined ? {} : { endedAt: m.endedAt }),
        ...(lastResult === undefined ? {} : { lastResult }),
        ...(start === undefined ? {} : { background: start.background })
      }
    }
    const now = new Date(yield* Clock.currentTimeMillis).toISOString()
    const times = [main[0]?.ts, main.at(-1)?.ts, ...Object.values(subagents).map((d) => d.updatedAt)].filter((t) => t !== undefined).sort()
    notes.push(`agent "${defaults.agent}" and model "${defaults.model}" assumed (a transcript does not record them)`)
    if (all.some((r) => r.type === "tool-call" && r.name === "create_subagent")) notes.push("agent types created at runtime were not recovered")
    const state: SessionStore.SessionState = {
      version: 1,
      id: session.id,
      agent: defaults.agent,
      cwd: defaults.cwd,
      model: defaults.model,
      createdAt: main[0]?.ts ?? times[0] ?? now,
      updatedAt: times.at(-1) ?? now,
      status: sessionStatus(main),
      subagents
    }
    return { state, children: Object.keys(subagents).length, notes }
  })
