import type { SessionStore } from "@dsh/session"
import { Clock, Duration, Effect, Queue, Scope } from "effect"
import type { SubagentDescriptor } from "../Records.ts"
import type { Activations } from "./activations.ts"
import type { DescriptorBook } from "./descriptors.ts"

/** Statuses of a child whose run is over. */
const SETTLED = new Set(["completed", "failed", "timeout", "cancelled", "lost"])

/** When a settled child's latest run ended (older records have only `updatedAt`). */
export const endedAtOf = (d: SubagentDescriptor): number => Date.parse(d.endedAt ?? d.updatedAt)

/**
 * Whether `d` should be archived at `now`: settled, not archived, its outcome delivered, and
 * either `cleanup: "delete"` or `afterMs` passed since it ended (undefined: never by time).
 * Shared by the owner's schedule and `pruneSessions`.
 */
export const archiveDue = (d: SubagentDescriptor, now: number, afterMs: number | undefined, delivered = true): boolean =>
  d.archivedAt === undefined && SETTLED.has(d.status) && delivered &&
  (d.cleanup === "delete" || (afterMs !== undefined && endedAtOf(d) + afterMs <= now))

export interface Archiver {
  /** A run ended or an outcome was delivered: look at the children again now. */
  readonly poke: Effect.Effect<void>
}

/**
 * The session owner's archiving schedule, in the tree's scope: each settled child is moved into
 * the session's archive when it is due (see `archiveDue`), the wait for the next one measured
 * with `Clock`, woken early by `poke`. Children loaded from an earlier process are included, so
 * nothing is forgotten over a restart, and when the tree closes whatever is due is archived
 * before the lease goes (a `cleanup: "delete"` child whose parent ended right after it is
 * archived all the same). Failures are logged and not retried for that run.
 */
export const makeArchiver = (options: {
  readonly session: SessionStore.SessionHandle | undefined
  readonly descriptors: DescriptorBook
  readonly activations: Activations
  /** Whether a background run's outcome reached its parent (true for runs without an announcement). */
  readonly delivered: (d: SubagentDescriptor) => boolean
  readonly afterMinutes: number
  readonly scope: Scope.Scope
}): Effect.Effect<Archiver> =>
  Effect.gen(function*() {
    const wake = yield* Queue.sliding<void>(1)
    const poke = Queue.offer(wake, undefined).pipe(Effect.asVoid)
    const { session, descriptors, activations } = options
    // `SubagentArchiving`'s 0 is "never".
    const afterMs = options.afterMinutes > 0 ? options.afterMinutes * 60_000 : undefined
    if (session === undefined) return { poke }
    // Runs already tried (nothing to archive, or it failed): not tried again until the child runs again.
    const tried = new Set<string>()
    const idle = (d: SubagentDescriptor) => activations.get(d.handle) === undefined && !tried.has(`${d.handle} ${d.runId}`)

    /** Archives one child; its descriptor marked archived, or undefined when it was not. */
    const archiveOne = (d: SubagentDescriptor, now: number) =>
      Effect.gen(function*() {
        const outcome = yield* session.archiveChild(d.handle).pipe(Effect.result)
        if (outcome._tag === "Failure") {
          tried.add(`${d.handle} ${d.runId}`)
          yield* Effect.logWarning(`could not archive ${d.handle}'s transcript: ${outcome.failure.message}`)
          return undefined
        }
        // Continued meanwhile: its first append restored it, so it is not archived.
        if (activations.get(d.handle) !== undefined) return undefined
        const current = descriptors.get(d.handle)
        if (current === undefined || current.runId !== d.runId) return undefined
        if (outcome.success === undefined) {
          // Nothing live to archive: it may be in the archive already (archived before a crash).
          const inArchive = (yield* session.archivedChildren.pipe(Effect.orElseSucceed(() => []))).some((a) => a.name === d.handle)
          if (!inArchive) {
            tried.add(`${d.handle} ${d.runId}`)
            return undefined
          }
        }
        return { ...current, archivedAt: new Date(now).toISOString() }
      })

    // What a sweep looks at: not every child of the session (10,000 children ending one by one
    // would make that quadratic), only the children whose record changed since the last sweep,
    // those whose outcome is still to be delivered (a poke says when), and, once the earliest of
    // their times has come, those waiting for their time. The first sweep looks at everything
    // (children of an earlier process).
    const fresh = new Set<string>()
    descriptors.onChange((handle) => fresh.add(handle))
    // A child seen running is looked at again once its run has ended (which pokes); looking at
    // every running child on each sweep made a fan-out of thousands quadratic.
    activations.onEnd((handle) => fresh.add(handle))
    const undelivered = new Set<string>()
    const timed = new Set<string>()
    let everything = true
    /** The earliest time a waiting child becomes due by time (undefined: none). */
    let nextDue: number | undefined

    /**
     * Archives every child due now (their records in one write).
     * Uninterruptible: a tree that closes meanwhile waits for the archive and its record.
     */
    const sweep = Effect.uninterruptible(Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const timeCame = nextDue !== undefined && nextDue <= now
      const looked: Array<SubagentDescriptor> = []
      if (everything) {
        looked.push(...descriptors.all())
        fresh.clear()
      } else {
        const handles = new Set([...fresh, ...undelivered, ...(timeCame ? timed : [])])
        fresh.clear()
        for (const h of handles) {
          const d = descriptors.get(h)
          if (d !== undefined) looked.push(d)
        }
      }
      everything = false
      for (const d of looked) {
        undelivered.delete(d.handle)
        timed.delete(d.handle)
      }
      if (timeCame || timed.size === 0) nextDue = undefined
      const candidates = looked.filter(idle)
      const marked: Array<SubagentDescriptor> = []
      for (const d of candidates) {
        if (!archiveDue(d, now, afterMs, options.delivered(d))) {
          if (d.archivedAt === undefined && SETTLED.has(d.status)) {
            if (!options.delivered(d)) undelivered.add(d.handle)
            else if (afterMs !== undefined) {
              timed.add(d.handle)
              const t = endedAtOf(d) + afterMs
              if (nextDue === undefined || t < nextDue) nextDue = t
            }
          }
          continue
        }
        const done = yield* archiveOne(d, now)
        if (done !== undefined) marked.push(done)
      }
      if (marked.length > 0) yield* descriptors.saveAll(marked).pipe(Effect.ignore({ log: "Warn", message: "could not record which children were archived" }))
      return { now }
    }))
    yield* Scope.addFinalizer(options.scope, sweep.pipe(Effect.ignore({ log: "Warn", message: "could not archive the children due when the session closed" })))

    const loop = Effect.gen(function*() {
      while (true) {
        const { now } = yield* sweep
        // The next time a child becomes due; one due already but undelivered waits for a poke.
        const next = nextDue
        const sleep = next === undefined ? Effect.never : Effect.sleep(Duration.millis(Math.max(1, next - now)))
        yield* Effect.raceFirst(sleep, Queue.take(wake))
      }
    })
    yield* Effect.forkIn(loop.pipe(Effect.ignore({ log: "Warn", message: "children are no longer archived in this process" })), options.scope)
    return { poke }
  })
