import { residentSetting } from "@dsh/cli-resident"
import { VERSION } from "@dsh/core"
import { providerStatuses, writeLine } from "@dsh/harness"
import { exposedWarning, findExposed } from "@dsh/session"
import { type BwrapProbe, probeBwrap, ProcessLauncher } from "@dsh/subprocess"
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { parseFlags } from "../Args.ts"
import { loadConfig } from "../Config.ts"
import type { CliContext } from "../Context.ts"

const list = (xs: ReadonlyArray<string> | undefined) => (xs === undefined || xs.length === 0 ? "(none)" : xs.join(", "))

const bwrapLine = (probe: BwrapProbe): string =>
  probe.works
    ? `${probe.path} (bubblewrap ${probe.version ?? "?"}): works — Bash runs confined`
    : `${probe.path ?? "not found"}: ${probe.problem ?? "does not work"}`

/**
 * `dsh doctor` (also `dsh sandbox check`): what this machine and configuration give dsh —
 * Node, `$DSH_HOME`, whether config.toml reads (or the first bad key), the permission and
 * sandbox settings, and whether bubblewrap is installed and really works here.
 */
export const doctorCommand = (args: ReadonlyArray<string>, ctx: CliContext) =>
  Effect.gen(function*() {
    const { values } = yield* parseFlags(args, { json: { type: "boolean" } }, "doctor")
    const launcher = yield* ProcessLauncher
    const configFile = join(ctx.home, "config.toml")
    const config = yield* loadConfig(ctx.home).pipe(Effect.result)
    const bwrap = yield* probeBwrap(launcher, { path: ctx.env.PATH })
    const settings = config._tag === "Success" ? config.success : undefined
    const exposed = yield* findExposed(ctx.home)
    const providers = yield* providerStatuses(settings?.providers ?? [], ctx)
    const report = {
      version: VERSION,
      node: { version: process.version, path: process.execPath },
      dshHome: { path: ctx.home, exists: existsSync(ctx.home), ...(exposed === undefined ? {} : { exposed }) },
      config: { path: configFile, exists: existsSync(configFile), ...(config._tag === "Failure" ? { error: config.failure.message } : {}) },
      permissions: settings?.permissions ?? {},
      sandbox: settings?.sandbox ?? { mode: "auto", network: false, writable: [] },
      bwrap,
      providers
    }
    if (values.json === true) return yield* writeLine(ctx.stdout, JSON.stringify(report))
    const p = report.permissions
    const lines = [
      `dsh ${report.version}`,
      `node        ${report.node.version} (${report.node.path})`,
      `DSH_HOME    ${report.dshHome.path}${report.dshHome.exists ? "" : " (does not exist yet)"}`,
      `config      ${report.config.error ?? `${configFile}${report.config.exists ? "" : " (none: defaults)"}`}`,
      `permissions mode ${p.mode ?? "default"}; allow ${list(p.allow)}; ask ${list(p.ask)}; deny ${list(p.deny)}`,
      `sandbox     mode ${report.sandbox.mode}, network ${report.sandbox.network}, writable ${list(report.sandbox.writable)}`,
      `bwrap       ${bwrapLine(bwrap)}`,
      `resident    ${(yield* Effect.promise(() => residentSetting(ctx.env))).reason}`,
      // The seed's warning: what a session directory holds is as sensitive as what the tools saw.
      `sessions    ${join(ctx.home, "sessions")} holds prompts, model output and tool results (which may include secrets a tool printed); ` +
      (exposed === undefined ? "owner-only (0700 directories, 0600 files)" : "some of it can be read by others (see the warning below)")
    ]
    if (!bwrap.works && report.sandbox.mode !== "off") {
      lines.push(report.sandbox.mode === "on"
        ? "            [sandbox] mode = \"on\": Bash is refused until bubblewrap works (apt-get install bubblewrap)"
        : "            [sandbox] mode = \"auto\": Bash runs unconfined (apt-get install bubblewrap to confine it)")
    }
    for (const p of providers) lines.push(`provider    ${p.name} (${p.package}): ${p.status === "ok" ? "loads" : p.reason}`)
    if (exposed !== undefined) lines.push(exposedWarning(ctx.home, exposed))
    for (const line of lines) yield* writeLine(ctx.stdout, line)
  })
