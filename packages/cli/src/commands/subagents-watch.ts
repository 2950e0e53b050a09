import type { SessionHandle } from "@dsh/session"
import { type AgentStatus, followSession, isLiveTerminal, liveTreeView, renderTreeLines, treeSummary } from "@dsh/view"
import { Clock, Effect, Stream } from "effect"
import type { CliContext } from "../Context.ts"
import { writeLine } from "@dsh/harness"

/**
 * `dsh subagents watch --session ID`: the live tree of a session another process runs, followed
 * through its transcripts (`followSession`: new records by cursor, a look every 250 ms). On a
 * terminal it is drawn in place like `dsh run`'s; otherwise each change of an agent's status is
 * one line, and the final tree is printed. It ends when the session's owner is gone and its
 * children have settled, or on Ctrl-C.
 */
export const subagentsWatchCommand = (session: SessionHandle, ctx: CliContext) =>
  Effect.gen(function*() {
    const frames = followSession(session)
    if (isLiveTerminal(ctx.stdout, ctx.env)) {
      return yield* Effect.scoped(Effect.gen(function*() {
        let view: Effect.Success<ReturnType<typeof liveTreeView>> | undefined
        yield* Stream.runForEach(frames, (frame) =>
          Effect.gen(function*() {
            // The view draws the follower's own tree, which each frame has brought up to date.
            view ??= yield* liveTreeView(ctx.stdout, frame.tree, ctx.env)
            if (frame.applied > 0 || frame.settled) yield* view.redraw
          }))
      }))
    }
    const seen = new Map<string, AgentStatus>()
    let last: Parameters<typeof renderTreeLines>[0] | undefined
    yield* Stream.runForEach(frames, (frame) =>
      Effect.gen(function*() {
        last = frame.tree
        for (const node of frame.tree.nodes()) {
          if (seen.get(node.handle) === node.status) continue
          seen.set(node.handle, node.status)
          yield* writeLine(ctx.stdout, `${node.handle} ${node.status}`)
        }
      }))
    if (last === undefined) return
    const now = yield* Clock.currentTimeMillis
    for (const line of renderTreeLines(last, { now, width: 200 })) yield* writeLine(ctx.stdout, line)
    yield* writeLine(ctx.stdout, treeSummary(last, now))
  })
