import { Clock, type Duration, Effect, Fiber, Option, Stream } from "effect"
import { OutputCollector } from "./internal/Buffers.ts"
import type { ProcessLauncherShape, RunOptions, RunResult, Spawn } from "./ProcessLauncher.ts"

/** Defaults of the derived `run`; per-call options override them. */
export interface RunDefaults {
  /** Bytes of output `run` keeps. Default 1 MiB. */
  readonly maxOutputBytes?: number | undefined
  /**
   * After the process group is gone, how long `run` waits for its output to end (only a
   * process that left the group can still hold a pipe). Default: the call's `killGrace`, else 2 seconds.
   */
  readonly drainWait?: Duration.Input | undefined
}

const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024
const DEFAULT_DRAIN_WAIT: Duration.Input = "2 seconds"

/**
 * A launcher from its one primitive: `run` is derived from `spawn` (stdin fed from `input`
 * then closed, stdout and stderr collected under a shared byte cap, the timeout and the
 * leftovers of the process group stopped with the handle's ladder). An ssh, container or
 * sandboxing launcher is then one function: a `spawn` that rewrites the options (or wraps
 * the handle) and calls another launcher's `spawn`.
 */
export const fromSpawn = (spawn: Spawn, defaults: RunDefaults = {}): ProcessLauncherShape => {
  const run = (options: RunOptions) =>
    Effect.scoped(Effect.gen(function*() {
      const startedAt = yield* Clock.currentTimeMillis
      const output = new OutputCollector(options.maxOutputBytes ?? defaults.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES)
      const handle = yield* spawn({ ...options, stdin: options.input === undefined ? "ignore" : "pipe" })
      const collect = (name: "stdout" | "stderr", stream: Stream.Stream<Uint8Array, unknown>) =>
        Stream.runForEachArray(stream, (chunks) => Effect.sync(() => chunks.forEach((c) => output.push(name, c)))).pipe(Effect.ignore)
      const collecting = yield* Effect.forkScoped(
        Effect.all([collect("stdout", handle.stdout), collect("stderr", handle.stderr)], { concurrency: 2, discard: true })
      )
      if (options.input !== undefined) {
        // A child that exits without reading its input is not an error of `run`.
        const input = new TextEncoder().encode(options.input)
        yield* Effect.forkScoped(Stream.run(Stream.make(input), handle.stdin).pipe(Effect.ignore))
      }
      const finished = options.timeout === undefined
        ? Option.some(yield* handle.exit)
        : yield* Effect.timeoutOption(handle.exit, options.timeout)
      // On timeout this is the ladder; after a normal exit it ends background leftovers, whose
      // open pipes would otherwise keep the output from ever ending.
      yield* handle.stop
      yield* Effect.timeoutOption(Fiber.join(collecting), options.killGrace ?? defaults.drainWait ?? DEFAULT_DRAIN_WAIT)
      const exit = yield* handle.exit
      const endedAt = yield* Clock.currentTimeMillis
      return {
        exitCode: exit.exitCode,
        signal: exit.signal,
        stdout: output.text("stdout"),
        stderr: output.text("stderr"),
        timedOut: Option.isNone(finished),
        truncated: output.truncated,
        durationMs: endedAt - startedAt
      } satisfies RunResult
    })).pipe(Effect.withSpan("ProcessLauncher.run", { attributes: { command: options.command } }))
  return { spawn, run }
}
