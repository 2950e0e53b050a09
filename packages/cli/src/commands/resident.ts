import { Place, type Protocol, Status } from "@dsh/cli-resident"
import { Effect } from "effect"
import { dirname } from "node:path"
import { fileURLToPath } from "node:url"
import { parseFlags } from "../Args.ts"
import { UsageError } from "../CliError.ts"
import type { CliContext } from "../Context.ts"
import { RunOutput } from "@dsh/harness"

/** The directory of this CLI's build, as its residents name it (`build`). */
const thisBuild = (): string => `${dirname(fileURLToPath(import.meta.url))}/`

const directory = (ctx: CliContext): string =>
  ctx.env.DSH_RESIDENT_DIR !== undefined && ctx.env.DSH_RESIDENT_DIR !== "" ? ctx.env.DSH_RESIDENT_DIR : Place.residentDir(process.getuid?.() ?? 0)

const mb = (bytes: number | undefined) => (bytes === undefined ? "?" : `${(bytes / 1024 / 1024).toFixed(1)} MB`)

/** One line a resident; one started by an earlier dsh of this directory reports less (then "?"). */
const line = (r: Partial<Protocol.ResidentStatus> & Pick<Protocol.ResidentStatus, "pid" | "build">): string =>
  `resident ${r.pid}${(r.name ?? "") === "" ? "" : ` (${r.name})`}  build ${r.build}  idle ${r.idleSeconds ?? "?"}s  ` +
  `memory ${mb(r.rssBytes)} (spare ${r.ready === true ? mb(r.spareRssBytes) : "loading"})  starts served ${r.served ?? "?"}` +
  `${(r.running ?? 0) > 0 ? `  running ${r.running}` : ""}${r.served === undefined ? "  (an earlier dsh: dsh resident stop ends it)" : ""}`

/**
 * `dsh resident status [--json]`: this user's residents of this build (pid, build, idle time,
 * memory, starts served); `dsh resident stop`: stops them, each after the start it serves.
 */
export const residentCommand = (args: ReadonlyArray<string>, ctx: CliContext) =>
  Effect.gen(function*() {
    const [sub, ...rest] = args
    const { values } = yield* parseFlags(rest, { json: { type: "boolean" } }, `resident ${sub ?? ""}`.trim())
    const dir = directory(ctx)
    if (sub === "status") {
      const mine = (yield* Effect.promise(() => Status.residentsIn(dir))).filter((r) => r.build === thisBuild())
      const residents = mine.map(({ socket: _, ...r }) => r)
      if (values.json === true) return yield* RunOutput.writeLine(ctx.stdout, JSON.stringify({ residents }))
      if (residents.length === 0) return yield* RunOutput.writeLine(ctx.stdout, "no resident running")
      for (const r of residents) yield* RunOutput.writeLine(ctx.stdout, line(r))
      return
    }
    if (sub === "stop") {
      const stopped = yield* Effect.promise(() => Status.stopResidents(dir, thisBuild()))
      if (values.json === true) return yield* RunOutput.writeLine(ctx.stdout, JSON.stringify({ stopped: stopped.map((r) => r.pid) }))
      return yield* RunOutput.writeLine(ctx.stdout, stopped.length === 0 ? "no resident running" : `stopped ${stopped.length} resident${stopped.length === 1 ? "" : "s"}`)
    }
    return yield* new UsageError({ message: `resident: expected status or stop (got ${sub === undefined ? "nothing" : `"${sub}"`})` })
  })
