import type { SubagentTree } from "@dsh/subagent"
import type { ChildProcessHandle } from "@dsh/subprocess"
import { Duration, Effect, Exit, Fiber, Option, Ref, Scope } from "effect"
import type { LaunchPlan } from "../OutOfProcessBackend.ts"

/**
 * A child process with its protocol connection and session, as long as it lives: it may
 * outlive the run that started it (kept warm for the next message). Its resources live in two
 * scopes, closed in order by `closeResident`: the connection's, then the process's.
 */
export interface Resident<C> {
  readonly connection: C
  readonly sessionId: string
  readonly child: ChildProcessHandle
  readonly plan: LaunchPlan
  readonly commandLine: string
  readonly agentInfo: unknown
  /** The process (the launcher's ladder is its finalizer). */
  readonly processScope: Scope.Closeable
  /** The connection (closing it rejects every pending request). */
  readonly connectionScope: Scope.Closeable
  /** Whether the child answered its last prompt: then it gets `exitGrace` to exit by itself. */
  readonly answered: Ref.Ref<boolean>
}

/**
 * Closes a child: its connection, its stdin, up to `exitGrace` for a child that answered its
 * last prompt to exit by itself, then the launcher's ladder on its process group. Only the
 * grace can be cut short (an interruption, e.g. the session tree ending, skips it); the rest
 * always runs, so the process group is gone before this ends.
 */
export const closeResident = (scopes: {
  readonly processScope: Scope.Closeable
  readonly connectionScope?: Scope.Closeable | undefined
  readonly child?: ChildProcessHandle | undefined
  readonly exitGrace?: Duration.Input | undefined
  readonly answered?: Ref.Ref<boolean> | undefined
}): Effect.Effect<void> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      if (scopes.connectionScope !== undefined) yield* Scope.close(scopes.connectionScope, Exit.void)
      const child = scopes.child
      if (child !== undefined) {
        yield* Effect.sync(() => child.stdin?.end())
        const answered = scopes.answered === undefined ? false : yield* Ref.get(scopes.answered)
        if (answered && scopes.exitGrace !== undefined) {
          yield* restore(Effect.timeoutOption(child.exit, scopes.exitGrace)).pipe(Effect.exit)
        }
      }
      yield* Scope.close(scopes.processScope, Exit.void)
    })
  )

interface Parked<C> {
  readonly resident: Resident<C>
  keeper: Fiber.Fiber<void> | undefined
}

/**
 * Children kept warm between runs, per session tree and handle, by one provider. A parked
 * child belongs to its tree: a keeper fiber in the tree's scope closes it when its keep-alive
 * passes, when its process exits by itself, or when the tree ends, whichever comes first;
 * `take` hands it to a new run instead. Exactly one of the two happens.
 */
export const makeResidents = <C>() => {
  const byTree = new WeakMap<SubagentTree, Map<string, Parked<C>>>()
  const parkedIn = (tree: SubagentTree): Map<string, Parked<C>> => {
    let map = byTree.get(tree)
    if (map === undefined) {
      map = new Map()
      byTree.set(tree, map)
    }
    return map
  }
  /** Removes the entry if it is still this one: whoever removes it owns the child. */
  const claim = (tree: SubagentTree, handle: string, entry: Parked<C>): boolean => {
    const map = parkedIn(tree)
    if (map.get(handle) !== entry) return false
    map.delete(handle)
    return true
  }

  return {
    /** Keeps `resident` warm for `keepAlive`, in `tree`. */
    park: (tree: SubagentTree, handle: string, resident: Resident<C>, keepAlive: Duration.Input): Effect.Effect<void> =>
      Effect.gen(function*() {
        const entry: Parked<C> = { resident, keeper: undefined }
        const close = closeResident({ ...resident, exitGrace: resident.plan.exitGrace })
        const expire = Effect.raceFirst(Effect.sleep(keepAlive), resident.child.exit).pipe(
          Effect.andThen(Effect.suspend(() => (claim(tree, handle, entry) ? close : Effect.void))),
          // The tree ends first: a child still parked is closed with it.
          Effect.onInterrupt(() => Effect.suspend(() => (claim(tree, handle, entry) ? close : Effect.void)))
        )
        // A run takes its handle's child before it starts, so none should be parked; if one is, it is closed.
        const previous = parkedIn(tree).get(handle)
        if (previous !== undefined && claim(tree, handle, previous)) {
          const keeper = previous.keeper
          yield* Effect.forkIn(
            Effect.andThen(keeper === undefined ? Effect.void : Fiber.interrupt(keeper), closeResident({ ...previous.resident, exitGrace: previous.resident.plan.exitGrace })),
            tree.scope
          )
        }
        parkedIn(tree).set(handle, entry)
        // However the process ends up closed (the tree's scope closes it too), it is no longer parked.
        yield* Scope.addFinalizer(resident.processScope, Effect.sync(() => void claim(tree, handle, entry)))
        entry.keeper = yield* Effect.forkIn(expire, tree.scope)
      }),
    /** The child parked for `handle`, now owned by the caller (its keep-alive no longer runs). */
    take: (tree: SubagentTree, handle: string): Effect.Effect<Option.Option<Resident<C>>> =>
      Effect.gen(function*() {
        const entry = parkedIn(tree).get(handle)
        if (entry === undefined || !claim(tree, handle, entry)) return Option.none()
        if (entry.keeper !== undefined) yield* Fiber.interrupt(entry.keeper)
        return Option.some(entry.resident)
      }),
    /** Whether a child is parked for `handle`. */
    has: (tree: SubagentTree, handle: string): boolean => parkedIn(tree).has(handle),
    /** Closes `resident` in the background of `tree` (the run's result does not wait for it). */
    release: (tree: SubagentTree, close: Effect.Effect<void>): Effect.Effect<void> =>
      Effect.asVoid(Effect.forkIn(close, tree.scope)),
    isZero: (keepAlive: Duration.Input | undefined): boolean =>
      keepAlive === undefined || Duration.isZero(Duration.fromInputUnsafe(keepAlive))
  }
}

export type Residents<C> = ReturnType<typeof makeResidents<C>>
