import type { SessionError, SessionStore } from "@dsh/session"
import { Clock, Effect, Stream } from "effect"
import type { AgentStatus, AgentTree } from "./AgentTree.ts"
import { isLiveTerminal, liveTreeView, type TerminalOut } from "./LiveTree.ts"
import { followSession } from "./SessionFollower.ts"
import { renderTreeLines, treeSummary } from "./TreeText.ts"

/**
 * Watches a session another process runs, through its transcripts (`followSession`). On a
 * terminal the live tree is drawn in place, as a run draws it; elsewhere each change of an
 * agent's status is one line (`<handle> <status>`, through `say`), then the final tree and its
 * summary. It ends when the session's owner is gone and its children have settled, or when
 * interrupted.
 */
export const watchSession = (
  session: SessionStore.SessionHandle,
  out: TerminalOut,
  env: NodeJS.ProcessEnv,
  say: (line: string) => Effect.Effect<void>
): Effect.Effect<void, SessionError.SessionError> =>
  Effect.gen(function*() {
    const frames = followSession(session)
    if (isLiveTerminal(out, env)) {
      return yield* Effect.scoped(Effect.gen(function*() {
        let view: Effect.Success<ReturnType<typeof liveTreeView>> | undefined
        yield* Stream.runForEach(frames, (frame) =>
          Effect.gen(function*() {
            // The view draws the follower's own tree, which each frame has brought up to date.
            view ??= yield* liveTreeView(out, frame.tree, env)
            if (frame.applied > 0 || frame.settled) yield* view.redraw
          }))
      }))
    }
    const seen = new Map<string, AgentStatus>()
    let last: AgentTree | undefined
    yield* Stream.runForEach(frames, (frame) =>
      Effect.gen(function*() {
        last = frame.tree
        for (const node of frame.tree.nodes()) {
          if (seen.get(node.handle) === node.status) continue
          seen.set(node.handle, node.status)
          yield* say(`${node.handle} ${node.status}`)
        }
      }))
    if (last === undefined) return
    const now = yield* Clock.currentTimeMillis
    for (const line of renderTreeLines(last, { now, width: 200 })) yield* say(line)
    yield* say(treeSummary(last, now))
  })
