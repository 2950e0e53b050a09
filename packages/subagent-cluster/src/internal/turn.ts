/**
 * A lock handed on in arrival order with one wake per release. Effect's `Semaphore` looks at
 * every waiter on each release, which is quadratic when thousands queue on it (the lane's turn
 * with 3,000 children queued on 64 slots: 3% of the parent's CPU), and a one-token `Queue` wakes
 * every waiting taker and lets any of them win.
 */
import { Deferred, Effect } from "effect"

interface Waiter {
  readonly handed: Deferred.Deferred<void>
  /** Interrupted while it waited: a release passes it over. */
  gone: boolean
}

export interface Turn {
  /** Waits for the turn (interruptible while it waits). */
  readonly take: Effect.Effect<void>
  /** Hands the turn to the longest waiting taker still waiting, or frees it. */
  readonly release: Effect.Effect<void>
}

export const makeTurn = (): Turn => {
  let held = false
  let waiters: Array<Waiter | undefined> = []
  let head = 0

  const handOn = () => {
    while (head < waiters.length) {
      const next = waiters[head]!
      waiters[head++] = undefined
      if (!next.gone) {
        Deferred.doneUnsafe(next.handed, Effect.void)
        return
      }
    }
    waiters = []
    head = 0
    held = false
  }

  // Queued and waiting in one uninterruptible step: an interruption between the two (Effect may
  // yield between any two steps) would leave a waiter nobody marks gone, and the turn with it.
  const take = Effect.uninterruptibleMask((restore) =>
    Effect.suspend(() => {
      if (!held) {
        held = true
        return Effect.void
      }
      const waiter: Waiter = { handed: Deferred.makeUnsafe<void>(), gone: false }
      waiters.push(waiter)
      // Long queues are compacted now and then, so a busy lane does not keep every past waiter's slot.
      if (head > 1024 && head * 2 > waiters.length) {
        waiters = waiters.slice(head)
        head = 0
      }
      return restore(Deferred.await(waiter.handed)).pipe(Effect.onInterrupt(() =>
        Effect.sync(() => {
          waiter.gone = true
          // Handed the turn just as it was interrupted: it goes on to the next.
          if (Deferred.isDoneUnsafe(waiter.handed)) handOn()
        })
      ))
    })
  )

  return { take, release: Effect.sync(handOn) }
}
