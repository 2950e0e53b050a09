import type { ProcessLauncher } from "@dsh/subprocess"
import { Duration, Effect, Exit, Fiber, Option, Ref, Scope, Stream } from "effect"
import type { LaunchPlan } from "../OutOfProcessBackend.ts"

/**
 * A child process with its protocol connection and session, as long as it lives: it may
 * outlive the run that started it (kept warm for the next message). Its resources live in two
 * scopes, closed in order by `closeResident`: the connection's, then the process's.
 */
export interface Resident<C> {
  readonly connection: C
  readonly sessionId: string
  readonly child: ProcessLauncher.ChildProcessHandle
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

/** EOF on the child's stdin: an empty stream run into its sink (already closed is fine). */
const endStdin = (child: ProcessLauncher.ChildProcessHandle): Effect.Effect<void> => Stream.run(Stream.empty, child.stdin).pipe(Effect.ignore)

/**
 * Closes a child: its connection, its stdin, up to `exitGrace` for a child that answered its
 * last prompt to exit by itself, then the launcher's ladder on its process group. Only the
 * grace can be cut short (an interruption, e.g. the session tree ending, skips it); the rest
 * always runs, so the process group is gone before this ends.
 */
export const closeResident = (scopes: {
  readonly processScope: Scope.Closeable
  readonly connectionScope?: Scope.Closeable | undefined
  readonly child?: ProcessLauncher.ChildProcessHandle | undefined
  readonly exitGrace?: Duration.Input | undefined
  readonly answered?: Ref.Ref<boolean> | undefined
}): Effect.Effect<void> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      if (scopes.connectionScope !== undefined) yield* Scope.close(scopes.connectionScope, Exit.void)
      const child = scopes.child
      if (child !== undefined) {
        yield* endStdin(child)
        const answered = scopes.answered === undefined ? false : yield* Ref.get(scopes.answered)
        if (answered && scopes.exitGrace !== undefined) {
          yield* restore(Effect.timeoutOption(child.exit, scopes.exitGrace)).pipe(Effect.exit)
        }
      }
      yield* Scope.close(scopes.processScope, Exit.void)
    })
  )

/** An idle child (parked, or being closed): what the tree's end closes promptly. */
interface Idle {
  readonly child: ProcessLauncher.ChildProcessHandle
  readonly connectionScope: Scope.Closeable
}

interface Parked<C> {
  readonly resident: Resident<C>
  readonly idle: Idle
  keeper: Fiber.Fiber<void> | undefined
}

/**
 * When the session tree ends (the harness is exiting), an idle child gets this long after EOF
 * to exit by itself, then this long between SIGTERM and SIGKILL: an exit never waits on the
 * graces of normal operation (a warm child would otherwise hold `dsh run` for seconds).
 */
const END_EXIT_GRACE: Duration.Input = "50 millis"
const END_KILL_GRACE: Duration.Input = "100 millis"

/** Connection, stdin, a short wait, then the ladder with the short grace. */
const closePromptly = (idle: Idle): Effect.Effect<void> =>
  Effect.gen(function*() {
    yield* Scope.close(idle.connectionScope, Exit.void)
    yield* endStdin(idle.child)
    yield* Effect.timeoutOption(idle.child.exit, END_EXIT_GRACE)
    yield* idle.child.stopWithin(END_KILL_GRACE)
  })

/** One tree's children (a tree is known by its lifetime scope): their scopes, what is parked, what is idle. */
interface TreeChildren<C> {
  /** Parent of every child's process scope and of the keepers and closers: closed in parallel. */
  readonly scope: Scope.Closeable
  readonly parked: Map<string, Parked<C>>
  readonly idle: Set<Idle>
}

/**
 * Children kept warm between runs, per session tree and handle, by one provider. A parked
 * child belongs to its tree: a keeper fiber in the tree's scope closes it when its keep-alive
 * passes, when its process exits by itself, or when the tree ends, whichever comes first;
 * `take` hands it to a new run instead. Exactly one of the two happens.
 *
 * When the tree ends, every idle child (parked or being closed) is closed at once and all in
 * parallel, with short graces: the end of a tree is the exit of its harness.
 */
export const makeResidents = <C>() => {
  const byTree = new WeakMap<Scope.Scope, TreeChildren<C>>()
  /** The tree's children, set up on first use: a parallel scope, and the prompt close before it. */
  const childrenOf = (tree: Scope.Scope): Effect.Effect<TreeChildren<C>> =>
    Effect.gen(function*() {
      const existing = byTree.get(tree)
      if (existing !== undefined) return existing
      const entry: TreeChildren<C> = { scope: yield* Scope.fork(tree, "parallel"), parked: new Map(), idle: new Set() }
      byTree.set(tree, entry)
      // Added after the fork, so it runs first (finalizers run in reverse): the idle children
      // are already gone when the keepers and closers are interrupted.
      yield* Scope.addFinalizer(
        tree,
        Effect.suspend(() => Effect.forEach([...entry.idle], closePromptly, { concurrency: "unbounded", discard: true }))
      )
      return entry
    })
  const idleOf = (resident: Resident<unknown>): Idle => ({ child: resident.child, connectionScope: resident.connectionScope })
  /** Removes the entry if it is still this one: whoever removes it owns the child. */
  const claim = (children: TreeChildren<C>, handle: string, entry: Parked<C>): boolean => {
    if (children.parked.get(handle) !== entry) return false
    children.parked.delete(handle)
    return true
  }

  return {
    /** The scope a child's process scope is forked from (the tree's children's parallel scope). */
    scopeFor: (tree: Scope.Scope): Effect.Effect<Scope.Scope> => Effect.map(childrenOf(tree), (c) => c.scope),
    /** Keeps `resident` warm for `keepAlive`, in `tree`. */
    park: (tree: Scope.Scope, handle: string, resident: Resident<C>, keepAlive: Duration.Input): Effect.Effect<void> =>
      Effect.gen(function*() {
        const children = yield* childrenOf(tree)
        const idle = idleOf(resident)
        const entry: Parked<C> = { resident, idle, keeper: undefined }
        const close = closeResident({ ...resident, exitGrace: resident.plan.exitGrace })
        const expire = Effect.raceFirst(Effect.sleep(keepAlive), resident.child.exit).pipe(
          Effect.andThen(Effect.suspend(() => (claim(children, handle, entry) ? close : Effect.void))),
          // The tree ends first: a child still parked is closed with it.
          Effect.onInterrupt(() => Effect.suspend(() => (claim(children, handle, entry) ? close : Effect.void)))
        )
        // A run takes its handle's child before it starts, so none should be parked; if one is, it is closed.
        const previous = children.parked.get(handle)
        if (previous !== undefined && claim(children, handle, previous)) {
          const keeper = previous.keeper
          yield* Effect.forkIn(
            Effect.andThen(keeper === undefined ? Effect.void : Fiber.interrupt(keeper), closeResident({ ...previous.resident, exitGrace: previous.resident.plan.exitGrace })),
            children.scope
          )
        }
        children.parked.set(handle, entry)
        children.idle.add(idle)
        // However the process ends up closed (the tree's scope closes it too), it is no longer parked.
        yield* Scope.addFinalizer(resident.processScope, Effect.sync(() => {
          claim(children, handle, entry)
          children.idle.delete(idle)
        }))
        entry.keeper = yield* Effect.forkIn(expire, children.scope)
      }),
    /** The child parked for `handle`, now owned by the caller (its keep-alive no longer runs). */
    take: (tree: Scope.Scope, handle: string): Effect.Effect<Option.Option<Resident<C>>> =>
      Effect.gen(function*() {
        const children = yield* childrenOf(tree)
        const entry = children.parked.get(handle)
        if (entry === undefined || !claim(children, handle, entry)) return Option.none()
        children.idle.delete(entry.idle)
        if (entry.keeper !== undefined) yield* Fiber.interrupt(entry.keeper)
        return Option.some(entry.resident)
      }),
    /** Whether a child is parked for `handle`. */
    has: (tree: Scope.Scope, handle: string): boolean => byTree.get(tree)?.parked.has(handle) === true,
    /**
     * Closes a child in the background of `tree` (the run's result does not wait for it); a
     * child that is still starting has no connection yet (`idle` undefined).
     */
    release: (tree: Scope.Scope, close: Effect.Effect<void>, resident?: Resident<C> | undefined): Effect.Effect<void> =>
      Effect.gen(function*() {
        const children = yield* childrenOf(tree)
        const idle = resident === undefined ? undefined : idleOf(resident)
        if (idle !== undefined) children.idle.add(idle)
        yield* Effect.forkIn(
          Effect.ensuring(close, Effect.sync(() => idle !== undefined && children.idle.delete(idle))),
          children.scope
        )
      }),
    isZero: (keepAlive: Duration.Input | undefined): boolean =>
      keepAlive === undefined || Duration.isZero(Duration.fromInputUnsafe(keepAlive))
  }
}

export type Residents<C> = ReturnType<typeof makeResidents<C>>
