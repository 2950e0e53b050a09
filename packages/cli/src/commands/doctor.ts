import { OptIn } from "@dsh/cli-resident"
import { RunOutput } from "@dsh/harness"
import { DshDoctor } from "@dsh/kit/dsh"
import { Effect } from "effect"
import { parseFlags } from "../Args.ts"
import type { CliContext } from "../Context.ts"

/**
 * `dsh doctor` (also `dsh sandbox check`): what this machine and configuration give dsh (see
 * `DshDoctor.report`), and whether this CLI's starts go to a resident dsh.
 */
export const doctorCommand = (args: ReadonlyArray<string>, ctx: CliContext) =>
  Effect.gen(function*() {
    const { values } = yield* parseFlags(args, { json: { type: "boolean" } }, "doctor")
    const report = yield* DshDoctor.report(ctx)
    if (values.json === true) return yield* RunOutput.writeLine(ctx.stdout, JSON.stringify(report))
    const resident = `resident    ${(yield* Effect.promise(() => OptIn.residentSetting(ctx.env))).reason}`
    for (const line of DshDoctor.lines(report, [resident])) yield* RunOutput.writeLine(ctx.stdout, line)
  })
