import { Cause, type Duration, Effect, Exit, Fiber, Pull, Queue, type Scope, Stream } from "effect"
import type { ChildProcessHandle } from "../ProcessLauncher.ts"

/** What a read of the child's stdout gave: chunks, the end, or a failure. */
export type PortRead =
  | { readonly _tag: "Chunks"; readonly chunks: ReadonlyArray<Uint8Array> }
  | { readonly _tag: "End" }
  | { readonly _tag: "Failure"; readonly error: unknown }

/**
 * A handle's stdio as promise-returning ports, the common core of the Web and Node adapters:
 * `read` pulls stdout, `write` queues a chunk for stdin (resolving false once stdin is gone),
 * `end` closes stdin (EOF) after what was queued, `drain` keeps reading stdout in the
 * background (a reader that gave up must not leave the child blocked on a full pipe).
 */
export interface ChildPorts {
  readonly read: () => Promise<PortRead>
  readonly write: (chunk: Uint8Array) => Promise<boolean> | boolean
  readonly end: () => Promise<void>
  readonly drain: () => void
}

/** Chunks written ahead of the child's stdin: a writer waits beyond this (backpressure). */
const STDIN_QUEUE_CHUNKS = 16
/** At the scope's end, how long queued writes may take to reach a child that does not read. */
const STDIN_FLUSH_WAIT: Duration.Input = "1 second"

export const childPorts = (child: ChildProcessHandle): Effect.Effect<ChildPorts, never, Scope.Scope> =>
  Effect.gen(function*() {
    const context = yield* Effect.context<never>()
    const runPromise = Effect.runPromiseWith(context)
    const runFork = Effect.runForkWith(context)
    const scope = yield* Effect.scope
    const pull = yield* Stream.toPull(child.stdout)
    const queue = yield* Queue.bounded<Uint8Array, Cause.Done>(STDIN_QUEUE_CHUNKS)
    // A failed write (stdin closed) shuts the queue, so later writes are refused, not stuck.
    const writer = yield* Stream.run(Stream.fromQueue(queue), child.stdin).pipe(
      Effect.ignore,
      Effect.ensuring(Queue.shutdown(queue)),
      Effect.forkScoped
    )
    // Finalizers run last-first: this one, before the writer's interruption, lets what was
    // written reach the child and ends its stdin (EOF), bounded for a child that stopped reading.
    yield* Effect.addFinalizer(() => Queue.end(queue).pipe(Effect.andThen(Effect.timeoutOption(Fiber.await(writer), STDIN_FLUSH_WAIT))))
    let draining = false
    return {
      read: () =>
        runPromise(Effect.exit(pull)).then((exit): PortRead =>
          Exit.isSuccess(exit)
            ? { _tag: "Chunks", chunks: exit.value }
            : Pull.isDoneCause(exit.cause) || Cause.hasInterruptsOnly(exit.cause)
            ? { _tag: "End" }
            : { _tag: "Failure", error: Cause.squash(exit.cause) }
        ),
      // The common case (room in the queue) settles synchronously, without a fiber.
      write: (chunk) => Queue.offerUnsafe(queue, chunk) || runPromise(Queue.offer(queue, chunk)),
      end: () => runPromise(Queue.end(queue).pipe(Effect.andThen(Fiber.await(writer)), Effect.asVoid)),
      drain: () => {
        if (draining) return
        draining = true
        runFork(Effect.forkIn(Stream.runDrain(child.stdout).pipe(Effect.ignore), scope))
      }
    }
  })
