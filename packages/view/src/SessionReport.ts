import { type Events, Usage } from "@dsh/core"
import type { SessionError, SessionStore } from "@dsh/session"
import { Records } from "@dsh/subagent"
import { Effect } from "effect"
import { type AgentNode, type AgentStatus, costIn } from "./AgentTree.ts"

/** One run of an agent on the timeline: asked for, running, ended (ms since the epoch). */
export interface ReportRun {
  readonly runId: string
  readonly queuedAt: number
  readonly startedAt: number | undefined
  readonly endedAt: number | undefined
  readonly status: AgentStatus
}

/** One agent of the report: `main` (index 0) or a child (`#index` in `subagents list`). */
export interface ReportAgent
  extends Pick<AgentNode, "handle" | "agent" | "provider" | "parent" | "depth" | "description" | "status" | "usage" | "cost" | "archived">
{
  readonly index: number
  readonly runs: ReadonlyArray<ReportRun>
  readonly cleanup: "keep" | "delete"
  /** Where its transcript lives (a path for the file store). */
  readonly location: string
  readonly lastResult: string | undefined
  /** Its whole transcript (read from the archive when it is archived). */
  readonly records: ReadonlyArray<Events.WireRecord>
}

/** Everything `renderReportHtml` draws, read from a session's store by `loadSessionReport`. */
export interface SessionReport {
  readonly session: {
    readonly id: string
    readonly agent: string
    readonly model: string
    readonly cwd: string
    readonly status: string
    readonly createdAt: string
    readonly updatedAt: string
  }
  /** The process running it now, if any (statuses are then a snapshot). */
  readonly owner: SessionStore.SessionOwner | undefined
  /** `main` first, then the children in `subagents list` order. */
  readonly agents: ReadonlyArray<ReportAgent>
  readonly totals: {
    readonly usage: Usage.Usage
    /** The sum of the costs known; undefined when no agent has one. */
    readonly cost: number | undefined
    readonly byStatus: Readonly<Record<string, number>>
  }
  /** The first and last moments on the timeline (ms). */
  readonly span: { readonly start: number; readonly end: number }
  /** Records that could not be read (torn lines, skipped descriptors). */
  readonly warnings: ReadonlyArray<string>
}

const LIVE = new Set(["queued", "running"])
const parse = (iso: string | undefined): number | undefined => {
  if (iso === undefined) return undefined
  const t = Date.parse(iso)
  return Number.isNaN(t) ? undefined : t
}

/**
 * The runs of each child, from the `subagent-start`/`subagent-end` events its parent's transcript
 * holds; a run is running from the child's first record after it was asked for.
 */
const runsFrom = (
  transcripts: ReadonlyMap<string, ReadonlyArray<Events.WireRecord>>,
  descriptors: ReadonlyArray<Records.SubagentDescriptor>
): Map<string, Array<ReportRun>> => {
  const runs = new Map<string, Array<ReportRun>>()
  const byRun = new Map<string, { handle: string; queuedAt: number; endedAt?: number; status?: AgentStatus }>()
  for (const records of transcripts.values()) {
    for (const r of records) {
      if (r.type === "subagent-start") byRun.set(r.runId, { handle: r.handle, queuedAt: Date.parse(r.ts) })
      else if (r.type === "subagent-end") {
        const known = byRun.get(r.runId)
        if (known !== undefined) Object.assign(known, { endedAt: Date.parse(r.ts), status: r.status })
      }
    }
  }
  for (const [runId, run] of byRun) {
    const own = transcripts.get(run.handle) ?? []
    const first = own.find((r) => Date.parse(r.ts) >= run.queuedAt && (run.endedAt === undefined || Date.parse(r.ts) <= run.endedAt))
    const list = runs.get(run.handle) ?? []
    list.push({ runId, queuedAt: run.queuedAt, startedAt: first === undefined ? undefined : Date.parse(first.ts), endedAt: run.endedAt, status: run.status ?? "running" })
    runs.set(run.handle, list)
  }
  // The latest run as its descriptor records it, when no transcript told of it.
  for (const d of descriptors) {
    const list = runs.get(d.handle) ?? []
    if (!list.some((r) => r.runId === d.runId)) {
      const queuedAt = parse(d.queuedAt) ?? parse(d.createdAt) ?? 0
      list.push({ runId: d.runId, queuedAt, startedAt: parse(d.startedAt), endedAt: LIVE.has(d.status) ? undefined : parse(d.endedAt) ?? parse(d.updatedAt), status: d.status })
    }
    list.sort((a, b) => a.queuedAt - b.queuedAt)
    runs.set(d.handle, list)
  }
  return runs
}

/**
 * Reads what a report shows of a session: its state, every agent's transcript (archived ones
 * from the archive, without restoring them), descriptors, task records and owner. A reader: it
 * never takes the session's lease. Children of a session no live process owns that are recorded
 * as queued or running are `lost`.
 */
export const loadSessionReport = (session: SessionStore.SessionHandle): Effect.Effect<SessionReport, SessionError.SessionError> =>
  Effect.gen(function*() {
    const state = yield* session.readState
    const owner = yield* session.owner
    const decoded = Records.decodeDescriptors(state)
    yield* Records.logWarnings(decoded.warnings)
    const descriptors = decoded.records
    const tasks = Records.decodeTasks(yield* session.readTasks).records
    const archived = new Set((yield* session.archivedChildren).map((a) => a.name))
    const warnings: Array<string> = [...decoded.warnings]

    const transcripts = new Map<string, ReadonlyArray<Events.WireRecord>>()
    const locations = new Map<string, string>()
    const main = yield* session.transcript.read
    transcripts.set("main", main.records)
    locations.set("main", session.transcript.location)
    warnings.push(...main.warnings)
    yield* Effect.forEach(descriptors, (d) =>
      Effect.gen(function*() {
        const child = yield* session.child(d.handle)
        const read = yield* child.transcript.read
        transcripts.set(d.handle, read.records)
        locations.set(d.handle, child.transcript.location)
        warnings.push(...read.warnings)
      }), { concurrency: 8, discard: true })

    const runs = runsFrom(transcripts, descriptors)
    const rawDescriptors = (typeof state.subagents === "object" && state.subagents !== null ? state.subagents : {}) as Record<string, unknown>
    // Costs where the harness priced them: on the record, or on the results of its runs.
    const costOf = (d: Records.SubagentDescriptor): number | undefined => {
      const recorded = costIn(rawDescriptors[d.handle])
      if (recorded !== undefined) return recorded
      const fromTasks = tasks.filter((t) => t.handle === d.handle).map((t) => t.result?.cost).filter((c) => c !== undefined)
      return fromTasks.length === 0 ? undefined : fromTasks.reduce((a, b) => a + b, 0)
    }
    const usageOf = (records: ReadonlyArray<Events.WireRecord>): Usage.Usage =>
      records.reduce((u, r) => (r.type === "usage" ? Usage.addUsage(u, r.usage) : u), Usage.emptyUsage)

    const mainRecords = transcripts.get("main") ?? []
    const lastTurnEnd = [...mainRecords].reverse().find((r) => r.type === "turn-end")
    const mainAgent: ReportAgent = {
      handle: "main",
      index: 0,
      agent: state.agent,
      provider: state.model,
      parent: undefined,
      depth: 0,
      description: "the session's main agent",
      status: (owner === undefined && state.status === "running" ? "lost" : state.status === "idle" ? "queued" : state.status) as AgentStatus,
      usage: usageOf(mainRecords),
      cost: mainRecords.reduce<number | undefined>((c, r) => (r.type === "usage" && costIn(r) !== undefined ? (c ?? 0) + costIn(r)! : c), undefined),
      runs: mainRecords.flatMap((r, i): Array<ReportRun> => {
        if (r.type !== "turn-start") return []
        const end = mainRecords.slice(i + 1).find((x) => x.type === "turn-end")
        return [{ runId: `turn-${r.turn}`, queuedAt: Date.parse(r.ts), startedAt: Date.parse(r.ts), endedAt: end === undefined ? undefined : Date.parse(end.ts), status: end?.type === "turn-end" ? end.status : "running" }]
      }),
      archived: false,
      cleanup: "keep",
      location: locations.get("main") ?? "",
      lastResult: lastTurnEnd?.type === "turn-end" ? lastTurnEnd.result : undefined,
      records: mainRecords
    }
    const children = descriptors.map((d, i): ReportAgent => {
      const status = (owner === undefined && LIVE.has(d.status) ? "lost" : d.status) as AgentStatus
      const childRuns = (runs.get(d.handle) ?? []).map((r) => (owner === undefined && r.endedAt === undefined ? { ...r, status: "lost" as const } : r))
      const ownRecords = transcripts.get(d.handle) ?? []
      const fromEvents = usageOf(ownRecords)
      return {
        handle: d.handle,
        index: i + 1,
        agent: d.agent,
        provider: d.provider,
        parent: d.parent,
        depth: d.depth,
        description: d.description,
        status,
        // Summed over every run where the transcript has the model calls; else the latest run's.
        usage: fromEvents.totalTokens >= d.usage.totalTokens ? fromEvents : d.usage,
        cost: costOf(d),
        runs: childRuns,
        archived: archived.has(d.handle) || d.archivedAt !== undefined,
        cleanup: d.cleanup ?? "keep",
        location: locations.get(d.handle) ?? d.transcript ?? "",
        lastResult: d.lastResult,
        records: ownRecords
      }
    })
    const agents = [mainAgent, ...children]
    const costs = agents.flatMap((a) => (a.cost === undefined ? [] : [a.cost]))
    const byStatus: Record<string, number> = {}
    for (const a of children) byStatus[a.status] = (byStatus[a.status] ?? 0) + 1
    const times = agents.flatMap((a) => a.runs.flatMap((r) => [r.queuedAt, r.startedAt, r.endedAt].filter((t): t is number => t !== undefined && Number.isFinite(t))))
    const start = Math.min(parse(state.createdAt) ?? Infinity, ...times)
    const end = Math.max(parse(state.updatedAt) ?? -Infinity, ...times)
    return {
      session: { id: state.id, agent: state.agent, model: state.model, cwd: state.cwd, status: mainAgent.status, createdAt: state.createdAt, updatedAt: state.updatedAt },
      owner,
      agents,
      totals: {
        usage: agents.reduce((u, a) => Usage.addUsage(u, a.usage), Usage.emptyUsage),
        cost: costs.length === 0 ? undefined : costs.reduce((a, b) => a + b, 0),
        byStatus
      },
      span: { start: Number.isFinite(start) ? start : 0, end: Number.isFinite(end) ? Math.max(end, start) : 0 },
      warnings
    } satisfies SessionReport
  })
