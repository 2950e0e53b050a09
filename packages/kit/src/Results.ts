import type { Events, Usage } from "@dsh/core"
import type { Records } from "@dsh/subagent"
import { Struct } from "effect"

/** How a run ended (`completed | failed | timeout | cancelled | lost`): from the runtime, never from model text. */
export type RunStatus = Events.RunStatus

/** A child's finished run. */
export interface ChildResult {
  /** Its unique handle (`researcher-1`): what `send`, `wait` and `stop` take. */
  readonly handle: string
  readonly agent: string
  readonly status: Events.RunStatus
  /** Its final message, or the result it reported. */
  readonly text: string
  readonly usage: Usage.Usage
  readonly durationMs: number
  /** Why it failed, and what else the parent should know. */
  readonly notes?: string | undefined
  readonly cost?: number | undefined
}

/** A child's result whose reported JSON its `schema` accepted. */
export interface TypedChildResult<T> extends ChildResult {
  readonly value: T
}

/** A background child, accepted: its outcome comes through `wait` or `announcements`. */
export interface ChildRun {
  readonly handle: string
  readonly status: "accepted"
  readonly runId: string
}

/** A message sent to a child that was running: it reads it at its next step. */
export interface Queued {
  readonly handle: string
  readonly status: "queued"
}

/** A child as `children()` lists it. */
export interface ChildInfo {
  readonly handle: string
  readonly agent: string
  readonly backend: string
  readonly status: string
  /** `main` for the kit's own children. */
  readonly parent: string
  readonly depth: number
  readonly usage: Usage.Usage
}

/** What `prompt` resolves to. */
export interface PromptResult {
  readonly text: string
  readonly status: Events.RunStatus
  readonly usage: Usage.Usage
  readonly children: ReadonlyArray<ChildInfo>
  readonly sessionId: string
  readonly error?: string | undefined
}

/** A background outcome, handed out once by `announcements`. */
export interface Announcement {
  readonly handle: string
  readonly agent: string
  readonly parent: string
  readonly status: Events.RunStatus | "running"
  readonly result?: ChildResult | undefined
}

/** A live event: dsh's `AgentEvent` with the handle of the child that produced it (`main` for the lead). */
export type ChildEvent = Events.AgentEvent & { readonly handle: string }

/** The event names `on` takes: `turn-start` (a run starts), `text-delta`, `tool-call`, `turn-end`, `permission`, … or `*`. */
export type ChildEventName = Events.AgentEvent["type"] | "*"

export const toChildResult = (r: Records.SubagentResult): ChildResult => ({
  ...Struct.pick(r, ["handle", "agent", "status", "usage", "durationMs", "notes", "cost"]),
  text: r.output
})

export const toChildInfo = (d: Records.SubagentDescriptor): ChildInfo => ({
  handle: d.handle,
  agent: d.agent,
  backend: d.provider,
  status: d.status,
  parent: d.parent,
  depth: d.depth,
  usage: d.usage
})

export const toAnnouncement = (r: Records.TaskRecord): Announcement => ({
  handle: r.handle,
  agent: r.agent,
  parent: r.parent,
  status: r.status,
  ...(r.result === undefined ? {} : { result: toChildResult(r.result) })
})
