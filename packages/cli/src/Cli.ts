import { Lost } from "@dsh/cli-resident"
import { Trace } from "@dsh/core"
import { Cause, Deferred, Effect, Exit, Fiber } from "effect"
import { CliExit, toCliExit } from "./CliError.ts"
import { dshHome } from "./Config.ts"
import type { CliContext } from "./Context.ts"
import { dispatch } from "./Dispatch.ts"
import { cliLayer } from "./Runtime.ts"

const signalled = Deferred.makeUnsafe<void>()
const ctx: CliContext = {
  env: process.env,
  cwd: process.cwd(),
  home: dshHome(process.env),
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  interrupted: Deferred.await(signalled)
}
// A reader that went away (`dsh sessions list | head -1`) ends the output, not the process with a trace.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0)
})

// `--version` and `--help` were answered by main.ts.
const argv = process.argv.slice(2)

// A parent's `TRACEPARENT` (a dsh or any other harness that started this one): its trace goes on here.
const program = toCliExit(dispatch(argv, ctx)).pipe(Trace.withTraceparent(ctx.env.TRACEPARENT), Effect.provide(cliLayer(ctx)))
const fiber = Effect.runFork(program)
// Ctrl-C, SIGTERM and SIGHUP (a closed terminal) stop the work: children are stopped and every
// record says `cancelled`. `run` and `demo` answer the cancel (a JSON summary still prints);
// other commands are interrupted. A second signal exits at once.
const graceful = argv[0] === "run" || argv[0] === "demo" || argv[0] === "runner" || argv[0] === "a2a"
let stopping = false
const stop = () => {
  if (stopping) process.exit(130)
  stopping = true
  if (graceful) Deferred.doneUnsafe(signalled, Effect.void)
  else Effect.runFork(Fiber.interrupt(fiber))
}
// `on`, not `once`: execa's exit hook (signal-exit) re-raises a signal that no other listener
// handles, which would kill this process before the children are stopped.
process.on("SIGINT", stop)
process.on("SIGTERM", stop)
process.on("SIGHUP", stop)
// Served by a spare whose resident was killed: the work stops as for a signal (`run` says why).
Lost.onResidentLost(stop)

const exit = await Effect.runPromise(Fiber.await(fiber))
if (Lost.residentLostReason() !== undefined) {
  // The launcher says the resident went away, in one line: nothing more here (`run` printed its summary).
  process.exitCode = 1
} else if (Exit.isSuccess(exit)) {
  process.exitCode = 0
} else if (Cause.hasInterruptsOnly(exit.cause)) {
  process.stderr.write("dsh: cancelled\n")
  process.exitCode = 1
} else {
  const error = Cause.squash(exit.cause)
  // A defect is a bug: its first line, exit 1 (the whole cause with DSH_DEBUG=1).
  const { code, line } = error instanceof CliExit ? error : { code: 1, line: `internal error: ${Cause.pretty(exit.cause).split("\n")[0]}` }
  process.stderr.write(`dsh: ${line}\n`)
  if (process.env.DSH_DEBUG === "1") process.stderr.write(`${Cause.pretty(exit.cause)}\n`)
  process.exitCode = code
}
