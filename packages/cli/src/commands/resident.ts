import { Place, Status } from "@dsh/cli-resident"
import { RunOutput } from "@dsh/harness"
import { Effect } from "effect"
import { dirname } from "node:path"
import { fileURLToPath } from "node:url"
import { parseFlags } from "../Args.ts"
import { UsageError } from "../CliError.ts"
import type { CliContext } from "../Context.ts"

/** The directory of this CLI's build, as its residents name it (`build`). */
const thisBuild = (): string => `${dirname(fileURLToPath(import.meta.url))}/`

/**
 * `dsh resident status [--json]`: this user's residents of this build (pid, build, idle time,
 * memory, starts served); `dsh resident stop`: stops them, each after the start it serves.
 */
export const residentCommand = (args: ReadonlyArray<string>, ctx: CliContext) =>
  Effect.gen(function*() {
    const [sub, ...rest] = args
    const { values } = yield* parseFlags(rest, { json: { type: "boolean" } }, `resident ${sub ?? ""}`.trim())
    const dir = Place.residentDirOf(process.getuid?.() ?? 0, ctx.env)
    if (sub === "status") {
      const residents = (yield* Effect.promise(() => Status.residentsIn(dir))).filter((r) => r.build === thisBuild()).map(({ socket: _, ...r }) => r)
      if (values.json === true) return yield* RunOutput.writeLine(ctx.stdout, JSON.stringify({ residents }))
      for (const line of residents.length === 0 ? ["no resident running"] : residents.map(Status.statusLine)) yield* RunOutput.writeLine(ctx.stdout, line)
      return
    }
    if (sub === "stop") {
      const stopped = yield* Effect.promise(() => Status.stopResidents(dir, thisBuild()))
      if (values.json === true) return yield* RunOutput.writeLine(ctx.stdout, JSON.stringify({ stopped: stopped.map((r) => r.pid) }))
      return yield* RunOutput.writeLine(ctx.stdout, stopped.length === 0 ? "no resident running" : `stopped ${stopped.length} resident${stopped.length === 1 ? "" : "s"}`)
    }
    return yield* new UsageError({ message: `resident: expected status or stop (got ${sub === undefined ? "nothing" : `"${sub}"`})` })
  })
