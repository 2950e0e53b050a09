import type { SessionHandle } from "@dsh/session"
import { Deferred, Effect, Scope, Semaphore } from "effect"
import type { SubagentDescriptor } from "../Vocabulary.ts"

const NOTE_DELAY = "25 millis"

/**
 * Child descriptors, kept in memory and written to `state.json` by a coalescing writer:
 * many children changing state at once share one atomic write. `save` returns once a
 * write that includes the change has completed (a durable result); `note` does not wait.
 */
export const makeDescriptorBook = (session: SessionHandle | undefined, scope: Scope.Scope) =>
  Effect.gen(function*() {
    const initial = session === undefined ? {} : ((yield* session.readState.pipe(Effect.orElseSucceed(() => undefined)))?.subagents ?? {})
    const book = new Map<string, SubagentDescriptor>(Object.entries(initial as Record<string, SubagentDescriptor>))
    const writing = yield* Semaphore.make(1)
    let pending: Deferred.Deferred<void> | undefined

    const write = (done: Deferred.Deferred<void>) =>
      Semaphore.withPermit(writing)(Effect.gen(function*() {
        if (pending === done) pending = undefined
        const snapshot = Object.fromEntries(book)
        if (session !== undefined) {
          yield* session.updateState((s) => ({ ...s, subagents: snapshot })).pipe(Effect.ignore)
        }
        yield* Deferred.succeed(done, undefined)
      }))

    const flush = Effect.gen(function*() {
      if (pending !== undefined) return pending
      const done = yield* Deferred.make<void>()
      pending = done
      yield* Effect.forkIn(write(done), scope)
      return done
    })

    // Transitions nobody waits on (queued, running) are written a moment later, together with
    // whatever else changed meanwhile, so they never delay a child's start.
    let scheduled = false
    const later = Effect.suspend(() => {
      if (scheduled) return Effect.void
      scheduled = true
      return Effect.forkIn(
        Effect.sleep(NOTE_DELAY).pipe(
          Effect.andThen(Effect.sync(() => (scheduled = false))),
          Effect.andThen(flush),
          Effect.asVoid
        ),
        scope
      ).pipe(Effect.asVoid)
    })

    return {
      get: (handle: string) => book.get(handle),
      all: () => [...book.values()],
      note: (d: SubagentDescriptor) => Effect.sync(() => book.set(d.handle, d)).pipe(Effect.andThen(later)),
      save: (d: SubagentDescriptor) =>
        Effect.sync(() => book.set(d.handle, d)).pipe(Effect.andThen(flush), Effect.flatMap(Deferred.await))
    }
  })

export type DescriptorBook = Effect.Success<ReturnType<typeof makeDescriptorBook>>
