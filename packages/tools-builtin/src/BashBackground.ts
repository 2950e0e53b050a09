import { Tool } from "@dsh/tools"
import type { ProcessLauncher } from "@dsh/subprocess"
import { Effect, Exit, Scope, Stream } from "effect"
import * as z from "zod"
import type { BashOptions } from "./Bash.ts"
import { planBash } from "./internal/bashPlan.ts"

/** Bytes of a command's output kept unread (older unread output is dropped, and the read says so). */
export const BACKGROUND_KEPT_BYTES = 1024 * 1024
/** Bytes one `BashOutput` call returns at most; the rest waits for the next read. */
export const BACKGROUND_READ_BYTES = 32 * 1024
/** Background commands one agent run may hold at once. */
export const BACKGROUND_MAX_COMMANDS = 16

interface Job {
  readonly id: string
  readonly command: string
  readonly handle: ProcessLauncher.ChildProcessHandle
  /** Unread output (stdout and stderr interleaved), bounded by `BACKGROUND_KEPT_BYTES`. */
  unread: Buffer
  dropped: number
  exit: ProcessLauncher.ExitInfo | undefined
  stopped: boolean
}

/** The commands of one agent run. */
interface RunJobs {
  next: number
  readonly jobs: Map<string, Job>
}

const statusOf = (job: Job): string =>
  job.exit === undefined
    ? "running"
    : job.stopped
    ? "stopped"
    : job.exit.signal !== null
    ? `killed by ${job.exit.signal}`
    : `exited with code ${job.exit.exitCode ?? "unknown"}`

/** Takes at most `max` bytes of unread output, cut at a line end when one is near. */
const take = (job: Job, max: number): { readonly text: string; readonly rest: number; readonly dropped: number } => {
  let n = Math.min(job.unread.length, max)
  if (n < job.unread.length) {
    const nl = job.unread.lastIndexOf(0x0a, n - 1)
    if (nl > 0) n = nl + 1
  }
  const text = job.unread.subarray(0, n).toString("utf8")
  job.unread = job.unread.subarray(n)
  const dropped = job.dropped
  job.dropped = 0
  return { text, rest: job.unread.length, dropped }
}

const startParams = z.object({
  command: z.string().min(1).describe("The command line, run with `bash -c` in the working directory; it keeps running after this call."),
  description: z.string().optional().describe("A few words on what the command does, shown to the user.")
})
const idParams = z.object({ id: z.string().min(1).describe("The id BashBackground returned (`bg-1`).") })

/**
 * Background commands: `BashBackground` starts one and returns its id, `BashOutput` returns what it
 * wrote since the last read (bounded) and whether it still runs, `BashStop` stops it and everything
 * it started. Each command is a scoped resource of the calling agent's run (`TurnInfo.scope`): a
 * run that ends normally waits for its commands to settle (the seed's "reported complete only
 * after its background tasks settle"); a cancelled or timed-out run stops them. They run in the same sandbox as Bash and
 * permission rules see them as `Bash(<command>)`.
 */
export const makeBackgroundShellTools = (launcher: ProcessLauncher.ProcessLauncherShape, options: BashOptions = {}): ReadonlyArray<Tool.AnyTool> => {
  // Per run, keyed by the run's scope: nothing outlives it, and one agent never sees another's ids.
  const runs = new WeakMap<Scope.Scope, RunJobs>()
  const jobsOf = (scope: Scope.Scope | undefined) => {
    if (scope === undefined) return undefined
    let run = runs.get(scope)
    if (run === undefined) {
      run = { next: 1, jobs: new Map() }
      runs.set(scope, run)
    }
    return run
  }
  const noRun = { content: "Background commands need an agent run; use Bash instead.", isError: true }
  const find = (scope: Scope.Scope | undefined, id: string) => jobsOf(scope)?.jobs.get(id)

  const start = Tool.defineTool({
    name: "BashBackground",
    description: [
      "Start a shell command in the background (a server, a watcher, a long build) and return its id at once.",
      "Read what it writes with BashOutput and stop it with BashStop. When your run ends, it is reported complete",
      "only after your background commands finish, so stop the ones that never end (servers, watchers) with BashStop;",
      "a cancelled or timed-out run stops them. Its stdout and stderr are interleaved; stdin is not connected."
    ].join(" "),
    parameters: startParams,
    needsApproval: true,
    permission: { kind: "execute", command: (params) => params.command, as: "Bash" },
    summarize: (params) => `$ ${params.command} &${params.description === undefined ? "" : `  # ${params.description}`}`,
    execute: (params, context) =>
      Effect.gen(function*() {
        const scope = context.turn?.scope
        const run = jobsOf(scope)
        if (scope === undefined || run === undefined) return noRun
        const live = [...run.jobs.values()].filter((j) => j.exit === undefined).length
        if (live >= BACKGROUND_MAX_COMMANDS) {
          return { content: `${live} background commands are running (at most ${BACKGROUND_MAX_COMMANDS}); stop one with BashStop first.`, isError: true }
        }
        // stderr joins stdout, so one stream keeps their order.
        const script = `exec 2>&1\n${params.command}`
        const plan = yield* planBash(options.sandbox, script, context)
        if (plan._tag === "Refused") return { content: `BashBackground is not available: ${plan.reason}.`, isError: true }
        const handle = yield* launcher.spawn({
          command: plan.command,
          args: plan.args,
          cwd: context.cwd,
          stdin: "ignore",
          ...(options.env === undefined ? {} : { env: options.env })
        }).pipe(
          Scope.provide(scope),
          Effect.mapError((error) => new Tool.ToolError({ message: `could not start the command: ${error.detail}` }))
        )
        const id = `bg-${run.next++}`
        const job: Job = { id, command: params.command, handle, unread: Buffer.alloc(0), dropped: 0, exit: undefined, stopped: false }
        // Read all along (the command never blocks on a full pipe); forked before the seed below,
        // so the reader outlives the wait for the command at the run's end.
        yield* Stream.runForEach(handle.stdout, (chunk) =>
          Effect.sync(() => {
            const all = Buffer.concat([job.unread, chunk])
            const over = all.length - BACKGROUND_KEPT_BYTES
            job.dropped += Math.max(0, over)
            job.unread = over > 0 ? all.subarray(over) : all
          })).pipe(Effect.ignore, Effect.forkIn(scope))
        run.jobs.set(id, job)
        // The seed: a run that ends while background work runs is reported complete only once
        // that work settles. A run that ends normally waits for the command (finalizers run in
        // reverse, so before the spawn's own, which stops it); a cancelled or timed-out run does
        // not wait, and the spawn's finalizer stops it.
        yield* Scope.addFinalizerExit(scope, (exit) => (Exit.isSuccess(exit) ? Effect.asVoid(handle.exit) : Effect.void))
        // Its exit is noted for BashOutput; the watcher lives (and dies) with the run.
        yield* handle.exit.pipe(
          Effect.tap((info) => Effect.sync(() => (job.exit = info))),
          Effect.forkIn(scope)
        )
        return `Started ${id} (pid ${handle.pid ?? "unknown"}): ${params.command}\nRead its output with BashOutput({"id":"${id}"}); stop it with BashStop before you finish unless it ends by itself.`
      })
  })

  const output = Tool.defineTool({
    name: "BashOutput",
    description: `Return what a background command wrote since the last read (at most ${BACKGROUND_READ_BYTES / 1024} KiB a call) and whether it still runs.`,
    parameters: idParams,
    needsApproval: false,
    execute: (params, context) =>
      Effect.sync(() => {
        const job = find(context.turn?.scope, params.id)
        if (job === undefined) return { content: `No background command ${params.id} in this run.`, isError: true }
        const read = take(job, BACKGROUND_READ_BYTES)
        const parts = [`[${job.id} ${statusOf(job)}]`]
        if (read.dropped > 0) parts.push(`[${read.dropped} older bytes were dropped unread]`)
        parts.push(read.text === "" ? "(no new output)" : read.text.replace(/\n$/, ""))
        if (read.rest > 0) parts.push(`[${read.rest} more bytes: read again]`)
        return parts.join("\n")
      })
  })

  const stop = Tool.defineTool({
    name: "BashStop",
    description: "Stop a background command and every process it started.",
    parameters: idParams,
    needsApproval: false,
    execute: (params, context) =>
      Effect.gen(function*() {
        const job = find(context.turn?.scope, params.id)
        if (job === undefined) return { content: `No background command ${params.id} in this run.`, isError: true }
        if (job.exit !== undefined) return `${job.id} had already ${statusOf(job)}.`
        job.stopped = true
        yield* job.handle.stop
        job.exit = yield* job.handle.exit
        return `Stopped ${job.id}.`
      })
  })

  return [start, output, stop]
}
