import type { SessionError, SessionStore } from "@dsh/session"
import { Effect, Exit, Scope, Semaphore } from "effect"
import type { buildRuntime, ChildListener, Runtime } from "./runtime.ts"

interface Running {
  readonly runtime: Runtime
  readonly listeners: Set<ChildListener>
  users: number
  readonly scope: Scope.Closeable
}

/**
 * The sessions this process runs now, one runtime each, shared by every caller (a prompt and
 * a `send` at once use the same tree: a child has one Activation). `build` makes a session's
 * runtime in the scope given; the last user's release closes it.
 */
export const makeRunningSessions = (
  store: SessionStore.SessionStoreShape,
  build: (sessionId: string, listeners: Set<ChildListener>, scope: Scope.Scope) => ReturnType<typeof buildRuntime>
) =>
  Effect.gen(function*() {
    const running = new Map<string, Running>()
    const runtimes = yield* Semaphore.make(1)
    // A session this process no longer runs is let go from memory (the store's handle, its
    // caches and open files); whoever asks for it next reads it back from the store.
    const releaseNow = (sessionId: string) =>
      running.has(sessionId) || store.release === undefined ? Effect.void : store.release(sessionId)
    const releaseIdle = (sessionId: string) => runtimes.withPermit(Effect.suspend(() => releaseNow(sessionId)))

    /** The session's runtime for the calling scope; `onChildEvent` hears its children meanwhile. */
    const openRuntime = (sessionId: string, onChildEvent?: ChildListener) =>
      Effect.acquireRelease(
        runtimes.withPermit(Effect.gen(function*() {
          const listener: ChildListener = onChildEvent ?? (() => Effect.void)
          const open = running.get(sessionId)
          if (open !== undefined) {
            open.users++
            open.listeners.add(listener)
            return { open, listener }
          }
          const scope = yield* Scope.make()
          const listeners = new Set([listener])
          const runtime = yield* build(sessionId, listeners, scope).pipe(Effect.onError(() => Scope.close(scope, Exit.void)))
          const created: Running = { runtime, listeners, users: 1, scope }
          running.set(sessionId, created)
          return { open: created, listener }
        })),
        ({ open, listener }) =>
          runtimes.withPermit(Effect.suspend(() => {
            open.listeners.delete(listener)
            if (--open.users > 0) return Effect.void
            running.delete(sessionId)
            return Scope.close(open.scope, Exit.void).pipe(Effect.andThen(releaseNow(sessionId)))
          }))
      ).pipe(Effect.map(({ open }) => open.runtime))

    return {
      openRuntime,
      /** A session's runtime when this process runs it now. */
      runtimeOf: (sessionId: string): Runtime | undefined => running.get(sessionId)?.runtime,
      /** Lets a session go from memory unless it runs here. */
      releaseIdle,
      /** After a reader's look at a session (listing, sending, stopping): let it go unless it runs here. */
      settled: <A, E2, R2>(sessionId: string, effect: Effect.Effect<A, E2, R2>) => Effect.ensuring(effect, releaseIdle(sessionId)),
      /** Children recorded as running whose session no live process owns are lost (readers say so). */
      withOwner: (sessionId: string): Effect.Effect<{ readonly session: SessionStore.SessionHandle; readonly orphaned: boolean }, SessionError.SessionError> =>
        Effect.gen(function*() {
          const session = yield* store.open(sessionId)
          return { session, orphaned: running.get(sessionId) === undefined && (yield* session.owner) === undefined }
        })
    }
  })

export type RunningSessions = Effect.Success<ReturnType<typeof makeRunningSessions>>

export const asLost = <A extends { readonly status: string }>(orphaned: boolean, x: A): A =>
  orphaned && (x.status === "running" || x.status === "queued") ? { ...x, status: "lost" } : x
