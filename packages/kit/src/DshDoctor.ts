import { Version } from "@dsh/core"
import { ConfigFile, type HarnessConfig, ProviderPackages } from "@dsh/harness"
import { HomePrivacy } from "@dsh/session"
import { ProcessLauncher, Sandbox } from "@dsh/subprocess"
import type { PermissionPolicy } from "@dsh/tools"
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { join } from "node:path"
import type { DshPlace } from "./DshModels.ts"

/** What this machine and configuration give a dsh harness (`dsh doctor --json`). */
export interface DoctorReport {
  readonly version: string
  readonly node: { readonly version: string; readonly path: string }
  readonly dshHome: { readonly path: string; readonly exists: boolean; readonly exposed?: HomePrivacy.Exposed }
  readonly config: { readonly path: string; readonly exists: boolean; readonly error?: string }
  readonly permissions: PermissionPolicy.PermissionSettings
  readonly sandbox: HarnessConfig.HarnessConfig["sandbox"]
  readonly bwrap: Sandbox.BwrapProbe
  readonly providers: ReadonlyArray<{ readonly name: string; readonly package: string; readonly status: "ok" | "error"; readonly reason?: string }>
}

/**
 * Node, `$DSH_HOME` (and whether others can read it), whether config.toml reads (or its first
 * bad key), the permission and sandbox settings, whether bubblewrap is installed and really
 * works here, and whether each `[providers.*]` package loads. Reads only.
 */
export const report = (place: DshPlace): Effect.Effect<DoctorReport, never, ProcessLauncher.ProcessLauncher> =>
  Effect.gen(function*() {
    const launcher = yield* ProcessLauncher.ProcessLauncher
    const configFile = join(place.home, "config.toml")
    const config = yield* Effect.result(ConfigFile.loadHarnessConfigFile(configFile))
    const settings = config._tag === "Success" ? config.success : undefined
    const exposed = yield* HomePrivacy.findExposed(place.home)
    return {
      version: Version.VERSION,
      node: { version: process.version, path: process.execPath },
      dshHome: { path: place.home, exists: existsSync(place.home), ...(exposed === undefined ? {} : { exposed }) },
      config: { path: configFile, exists: existsSync(configFile), ...(config._tag === "Failure" ? { error: config.failure.message } : {}) },
      permissions: settings?.permissions ?? {},
      sandbox: settings?.sandbox ?? { mode: "auto", network: false, writable: [] },
      bwrap: yield* Sandbox.probeBwrap(launcher, { path: place.env.PATH }),
      providers: yield* ProviderPackages.providerStatuses(settings?.providers ?? [], place)
    }
  })

const list = (xs: ReadonlyArray<string> | undefined) => (xs === undefined || xs.length === 0 ? "(none)" : xs.join(", "))

const bwrapLine = (probe: Sandbox.BwrapProbe): string =>
  probe.works
    ? `${probe.path} (bubblewrap ${probe.version ?? "?"}): works — Bash runs confined`
    : `${probe.path ?? "not found"}: ${probe.problem ?? "does not work"}`

/** The report as `dsh doctor` prints it; `extra` lines (`name value`) go after bwrap's. */
export const lines = (r: DoctorReport, extra: ReadonlyArray<string> = []): ReadonlyArray<string> => {
  const p = r.permissions
  const out = [
    `dsh ${r.version}`,
    `node        ${r.node.version} (${r.node.path})`,
    `DSH_HOME    ${r.dshHome.path}${r.dshHome.exists ? "" : " (does not exist yet)"}`,
    `config      ${r.config.error ?? `${r.config.path}${r.config.exists ? "" : " (none: defaults)"}`}`,
    `permissions mode ${p.mode ?? "default"}; allow ${list(p.allow)}; ask ${list(p.ask)}; deny ${list(p.deny)}`,
    `sandbox     mode ${r.sandbox.mode}, network ${r.sandbox.network}, writable ${list(r.sandbox.writable)}`,
    `bwrap       ${bwrapLine(r.bwrap)}`,
    ...extra,
    // The seed's warning: what a session directory holds is as sensitive as what the tools saw.
    `sessions    ${join(r.dshHome.path, "sessions")} holds prompts, model output and tool results (which may include secrets a tool printed); ` +
    (r.dshHome.exposed === undefined ? "owner-only (0700 directories, 0600 files)" : "some of it can be read by others (see the warning below)")
  ]
  if (!r.bwrap.works && r.sandbox.mode !== "off") {
    out.push(r.sandbox.mode === "on"
      ? "            [sandbox] mode = \"on\": Bash is refused until bubblewrap works (apt-get install bubblewrap)"
      : "            [sandbox] mode = \"auto\": Bash runs unconfined (apt-get install bubblewrap to confine it)")
  }
  for (const provider of r.providers) out.push(`provider    ${provider.name} (${provider.package}): ${provider.status === "ok" ? "loads" : provider.reason}`)
  if (r.dshHome.exposed !== undefined) out.push(HomePrivacy.exposedWarning(r.dshHome.path, r.dshHome.exposed))
  return out
}
