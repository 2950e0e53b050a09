import type { Events } from "@dsh/core"
import type { SessionError, SessionStore } from "@dsh/session"
import { Records } from "@dsh/subagent"
import { type Duration, Effect, Schedule, Stream } from "effect"
import { type AgentTree, make as makeAgentTree } from "./AgentTree.ts"

/** One look at a followed session. */
export interface FollowFrame {
  readonly tree: AgentTree
  /** The session's owner is gone and none of its children runs: nothing will change any more. */
  readonly settled: boolean
  /** Events applied since the previous frame. */
  readonly applied: number
}

const LIVE = new Set(["queued", "running"])

/**
 * Follows a session that another process runs (or ran): every `interval` (on `Clock`) it reads
 * what was appended to the main transcript and each child's since the last look (by cursor, never
 * the whole file again), applies the new records in time order to one `AgentTree`, takes the
 * children's descriptors from the session's state, and emits a frame. The stream ends after the
 * first frame in which no live process owns the session and no child is queued or running (a
 * child still recorded as running then is `lost`).
 */
export const followSession = (
  session: SessionStore.SessionHandle,
  options: { readonly interval?: Duration.Input | undefined } = {}
): Stream.Stream<FollowFrame, SessionError.SessionError> =>
  Stream.unwrap(Effect.gen(function*() {
    const state = yield* session.readState
    const tree = makeAgentTree({ agent: state.agent, model: state.model })
    const cursors = new Map<string, number>()
    // Children whose transcript was read after their run had settled: nothing more will come
    // until they run again (an archived one would otherwise be decompressed at every look).
    const caughtUp = new Map<string, string>()

    const look = Effect.gen(function*() {
      // The owner first: whatever it wrote before it went is read in this same look.
      const owned = (yield* session.owner) !== undefined
      const descriptors = Records.decodeDescriptors(yield* session.readState).records
      const sources: Array<readonly [string, SessionStore.SessionHandle["transcript"]]> = [["main", session.transcript]]
      for (const d of descriptors) {
        if (caughtUp.get(d.handle) === d.runId) continue
        sources.push([d.handle, (yield* session.child(d.handle)).transcript])
        if (!LIVE.has(d.status)) caughtUp.set(d.handle, d.runId)
      }
      const fresh: Array<{ readonly source: string; readonly record: Events.WireRecord; readonly order: number }> = []
      for (const [source, transcript] of sources) {
        const { records, cursor } = yield* transcript.readFrom(cursors.get(source) ?? 0)
        cursors.set(source, cursor)
        for (const record of records) fresh.push({ source, record, order: fresh.length })
      }
      // Records of different files interleave by their time (then by file and line).
      fresh.sort((a, b) => a.record.ts.localeCompare(b.record.ts) || a.order - b.order)
      for (const { source, record } of fresh) tree.apply(source, record, Date.parse(record.ts))
      const settled = !owned
      for (const d of descriptors) tree.noteDescriptor(settled && LIVE.has(d.status) ? ({ ...d, status: "lost" } satisfies Records.SubagentDescriptor) : d)
      return { tree, settled, applied: fresh.length } satisfies FollowFrame
    })

    return Stream.fromEffectSchedule(look, Schedule.spaced(options.interval ?? "250 millis")).pipe(
      Stream.takeUntil((frame) => frame.settled)
    )
  }))
