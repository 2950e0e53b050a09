import { type AgentHost, TranscriptView } from "@dsh/agent"
import type { Events } from "@dsh/core"
import type { SessionError, SessionStore } from "@dsh/session"
import { Archiving, ChildRefs, Records, SubagentInfo } from "@dsh/subagent"
import { TreeText } from "@dsh/view"
import { Data, Effect, Result } from "effect"

/** A child that cannot be shown: not in the session (`Unknown`) or its transcript gone (`Missing`). */
export class ChildLookupError extends Data.TaggedError("ChildLookupError")<{ readonly reason: "Unknown" | "Missing"; readonly message: string }> {}

type Session = SessionStore.SessionHandle
type Record = Records.SubagentDescriptor

/** A session's children as recorded (warnings about records that do not decode are logged). */
export const records = (session: Session): Effect.Effect<ReadonlyArray<Record>, SessionError.SessionError> =>
  Effect.gen(function*() {
    const decoded = Records.decodeDescriptors(yield* session.readState)
    yield* Records.logWarnings(decoded.warnings)
    return decoded.records
  })

/** A child by its handle or as `#N`, its place in the list. */
export const find = (session: Session, children: ReadonlyArray<Record>, ref: string): Effect.Effect<Record, ChildLookupError> => {
  const found = ChildRefs.resolveChildRef(children, ref)
  return Result.isFailure(found)
    ? Effect.fail(new ChildLookupError({ reason: "Unknown", message: `${found.failure} in session ${session.id}` }))
    : Effect.succeed(found.success)
}

/** The list as `dsh subagents list` prints it: `#N`, handle, status, agent, backend, parent, tokens, cost. */
export const listLines = (children: ReadonlyArray<AgentHost.HostChildSummary>): ReadonlyArray<string> =>
  children.length === 0 ? ["no subagents"] : children.map((s, i) => {
    const cost = s.cost === undefined ? "" : `  ${TreeText.formatCost(s.cost)}`
    return `${`#${i + 1}`.padEnd(4)} ${s.name.padEnd(16)} ${s.status.padEnd(9)} ${s.agent.padEnd(10)} ${s.provider.padEnd(8)} parent ${s.parent}  ${s.usage.totalTokens} tokens${cost}`
  })

/**
 * The last records of a child's conversation (`limit`); tool calls with `tools`, permission
 * decisions with `permissions`. A transcript that is gone while the child is not queued fails.
 */
export const log = (
  session: Session,
  child: Record,
  options: { readonly limit?: number | undefined; readonly tools?: boolean | undefined; readonly permissions?: boolean | undefined }
): Effect.Effect<ReadonlyArray<Events.WireRecord>, ChildLookupError | SessionError.SessionError> =>
  Effect.gen(function*() {
    const { records } = yield* (yield* session.child(child.handle)).transcript.read
    if (records.length === 0 && child.status !== "queued") {
      return yield* new ChildLookupError({ reason: "Missing", message: `${child.handle}'s transcript is missing (${child.transcript ?? "no location"})` })
    }
    return TranscriptView.conversationRecords(records, options)
  })

/**
 * What `dsh subagents info` shows of a child: its record, when it will be archived (after
 * `archiveAfterMinutes` settled) and the profile warnings of its transcript (patterns that can
 * never match). A transcript that cannot be read has none to show.
 */
export const info = (session: Session, child: Record, archiveAfterMinutes: number = Archiving.defaultArchiving.afterMinutes) =>
  Effect.gen(function*() {
    const records = yield* Effect.orElseSucceed(Effect.map(Effect.flatMap(session.child(child.handle), (c) => c.transcript.read), (t) => t.records), () => [])
    const warnings = records.flatMap((r) => (r.type === "notice" && r.level === "warning" ? [r.message] : []))
    return { ...SubagentInfo.subagentInfo(child, session.id, archiveAfterMinutes), ...(warnings.length === 0 ? {} : { warnings }) }
  })

/** `info`'s fields one per line, as `dsh subagents info` prints them. */
export const infoLines = (found: { readonly [key: string]: unknown }): ReadonlyArray<string> =>
  Object.entries(found).map(([k, v]) => `${k}: ${typeof v === "object" ? JSON.stringify(v) : String(v)}`)

/** What `dsh subagents stop` prints of the children it stopped (`target`: a handle or `all`). */
export const stopLines = (stopped: ReadonlyArray<{ readonly name: string; readonly status: string }>, target: string): ReadonlyArray<string> =>
  stopped.length === 0 ? [`nothing to stop: ${target === "all" ? "no subagent" : target} is running`] : stopped.map((s) => `${s.name} ${s.status}`)
