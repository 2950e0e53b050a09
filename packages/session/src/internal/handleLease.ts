/** The ownership lease as a handle holds it: `owner.lock`, shared and counted within this process. */
import { join } from "node:path"
import { Clock, Effect, Ref, Schedule, type Scope, Semaphore } from "effect"
import { SessionError } from "../SessionError.ts"
import type { SessionOwner } from "../SessionStore.ts"
import { ioSync } from "./fs.ts"
import { type HeldLock, isAlive, type LeaseOwner, readOwner, release, tryAcquire } from "./lease.ts"

/** A handle's lease: what `makeHandleLease` gives the handle. */
export interface HandleLease {
  readonly acquire: Effect.Effect<SessionOwner, SessionError, Scope.Scope>
  /** The live owner: this process while it holds the lease, else whoever `owner.lock` names. */
  readonly owner: Effect.Effect<SessionOwner | undefined, SessionError>
  /** Runs `effect` holding the lease (shared when this process holds it already). */
  readonly underLease: <A>(effect: Effect.Effect<A, SessionError>) => Effect.Effect<A, SessionError>
  /** Runs `effect` (then `true`) unless this process holds the lease (then `false`), never while it is being taken. */
  readonly unlessHeld: (effect: Effect.Effect<void>) => Effect.Effect<boolean>
}

export const makeHandleLease = (dir: string, id: string, beforeRelease: Effect.Effect<void, SessionError> = Effect.void): Effect.Effect<HandleLease> =>
  Effect.gen(function*() {
    const lockPath = join(dir, "owner.lock")
    const leaseLock = yield* Semaphore.make(1)
    // This process's hold on the lease: shared by every user of the handle, counted.
    const held = yield* Ref.make<{ readonly lock: HeldLock; readonly owner: LeaseOwner; readonly users: number } | undefined>(undefined)
    const takeLease = leaseLock.withPermit(Effect.gen(function*() {
      const holding = yield* Ref.get(held)
      if (holding !== undefined) {
        yield* Ref.set(held, { ...holding, users: holding.users + 1 })
        return holding.owner
      }
      const now = new Date(yield* Clock.currentTimeMillis)
      const outcome = yield* ioSync("lock", lockPath, () => tryAcquire(lockPath, now)).pipe(
        Effect.repeat({ schedule: Schedule.spaced("50 millis"), while: (o) => o._tag === "Contended", times: 100 })
      )
      if (outcome._tag === "Owned") {
        return yield* new SessionError({ reason: "Owned", detail: `session "${id}" is being run by another process (pid ${outcome.owner.pid} on ${outcome.owner.host}, since ${outcome.owner.acquiredAt})` })
      }
      if (outcome._tag === "Contended") return yield* new SessionError({ reason: "Io", detail: `${lockPath}: could not take the session's lease (another process keeps taking it over)` })
      yield* Ref.set(held, { lock: outcome.held, owner: outcome.owner, users: 1 })
      return outcome.owner
    }))
    const giveLease = leaseLock.withPermit(Effect.gen(function*() {
      const holding = yield* Ref.get(held)
      if (holding === undefined) return
      if (holding.users > 1) return yield* Ref.set(held, { ...holding, users: holding.users - 1 })
      yield* Ref.set(held, undefined)
      yield* beforeRelease.pipe(
        Effect.ignore({ log: "Warn", message: `could not fold the state of session "${id}" before giving up its lease` }),
        Effect.andThen(ioSync("unlock", lockPath, () => release(lockPath, holding.lock))),
        Effect.ignore({ log: "Warn", message: `could not release ${lockPath}` })
      )
    }))
    const leaseOwner = (o: LeaseOwner): SessionOwner => ({ pid: o.pid, host: o.host, acquiredAt: o.acquiredAt })
    const acquire = Effect.acquireRelease(takeLease, () => giveLease).pipe(Effect.map(leaseOwner))
    const underLease = <A>(effect: Effect.Effect<A, SessionError>) => Effect.scoped(acquire.pipe(Effect.andThen(effect)))
    const owner = Effect.flatMap(Ref.get(held), (holding) =>
      holding !== undefined
        ? Effect.succeed(leaseOwner(holding.owner))
        : ioSync("read", lockPath, () => readOwner(lockPath)).pipe(Effect.map((o) => (o !== undefined && o.token !== "unreadable" && isAlive(o) ? leaseOwner(o) : undefined)))
    )
    const unlessHeld = (effect: Effect.Effect<void>) =>
      leaseLock.withPermit(Effect.flatMap(Ref.get(held), (holding) => holding !== undefined ? Effect.succeed(false) : Effect.as(effect, true)))
    return { acquire, owner, underLease, unlessHeld }
  })
