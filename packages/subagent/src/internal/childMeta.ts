import type { SessionError, SessionStore } from "@dsh/session"
import { Effect, Schema } from "effect"

/** Only the field recovery reads; every other field of `meta.json` is kept as written. */
const MetaStatus = Schema.Struct({ status: Schema.String })
const decodeStatus = Schema.decodeUnknownOption(MetaStatus)

/** What a driver writes while a run is under way. */
const UNDER_WAY = new Set(["starting", "running"])

/**
 * Makes a child's `meta.json` say `lost` when it still says the run is under way: recovery has
 * marked the child's descriptor (and task) lost, and a driver whose process died with its
 * owner (kill -9) never wrote how the run ended. Every record of the child then agrees. A
 * failure is logged, never fatal: the descriptor is the record of truth.
 */
export const markMetaLost = (session: SessionStore.SessionHandle, handle: string, at: string): Effect.Effect<void> =>
  session.child(handle).pipe(
    Effect.flatMap((child) =>
      settleMeta(child, { status: "lost", endedAt: at, notes: "lost: the process that ran it ended without recording how the run ended" }, UNDER_WAY)
    ),
    Effect.ignore({ log: "Warn", message: `could not mark ${handle}'s meta.json lost` })
  )

/**
 * Rewrites how a child's run ended in its `meta.json`, when it says one of `from` (any status
 * when omitted); every other field is kept. Nothing is written for a child without one.
 */
export const settleMeta = (
  child: SessionStore.ChildStore,
  ending: { readonly status: string; readonly endedAt: string; readonly notes: string },
  from?: ReadonlySet<string> | undefined
): Effect.Effect<void, SessionError.SessionError> =>
  Effect.gen(function*() {
    const meta = yield* child.readMeta
    const status = decodeStatus(meta)
    if (status._tag === "None" || (from !== undefined && !from.has(status.value.status))) return
    yield* child.writeMeta({ ...(meta as Record<string, unknown>), ...ending })
  })
