import { constants } from "node:fs"
import { access, mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { delimiter, join, resolve } from "node:path"
import { Effect, Ref } from "effect"
import { fromSpawn } from "./FromSpawn.ts"
import type { ProcessLauncherShape, SpawnOptions } from "./ProcessLauncher.ts"
import { SubprocessError } from "./SubprocessError.ts"

/** `auto`: confine when bubblewrap works, else warn once and run unconfined; `on`: refuse without it; `off`: never. */
export type SandboxMode = "auto" | "on" | "off"

/** `[sandbox]` of config.toml. */
export interface SandboxSettings {
  readonly mode: SandboxMode
  /** Whether confined commands may use the network (default false: only a private loopback). */
  readonly network: boolean
  /** Writable paths besides the working directory and the private /tmp. */
  readonly writable: ReadonlyArray<string>
}

export const defaultSandboxSettings: SandboxSettings = { mode: "auto", network: false, writable: [] }

/** What was found of bubblewrap on this machine. */
export interface BwrapProbe {
  /** Where `bwrap` is on PATH, when it is. */
  readonly path?: string | undefined
  readonly version?: string | undefined
  /** Whether a trial sandbox (every namespace we use) started and exited 0. */
  readonly works: boolean
  /** Why it does not work, in words (not installed; the kernel refused namespaces; …). */
  readonly problem?: string | undefined
}

/** What installing bubblewrap takes, for messages. */
export const BWRAP_INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)"

/**
 * The bubblewrap arguments that confine a command: the whole file system read-only, the
 * working directory and `writable` paths bound writable, a private /tmp (tmpfs), fresh /proc
 * and /dev, a new PID namespace with the command as PID 1 (no ancestor's `/proc/<pid>` is
 * visible, and everything dies with it), a new session, death with the parent, every
 * capability dropped (so even root cannot remount), and no network unless `network`.
 * `program`: the command and its arguments; a program installed under /tmp (its executable or
 * a script it is given) keeps its top directory there, read-only, or the private /tmp would hide it.
 * `hidden`: paths the command must never see (e.g. the sockets of a resident dsh, which runs
 * what it is asked unconfined); one that a bound directory would show is covered by an empty tmpfs.
 */
export const bwrapArgs = (options: {
  readonly cwd: string
  readonly writable?: ReadonlyArray<string> | undefined
  readonly network?: boolean | undefined
  readonly program?: ReadonlyArray<string> | undefined
  readonly hidden?: ReadonlyArray<string> | undefined
}): Array<string> => {
  const cwd = resolve(options.cwd)
  const writable = (options.writable ?? []).map((p) => resolve(cwd, p))
  const installedInTmp = [...new Set((options.program ?? []).flatMap((p) => {
    const top = /^\/tmp\/[^/]+/.exec(p)?.[0]
    return top === undefined ? [] : [top]
  }))]
  return [
    "--die-with-parent",
    "--new-session",
    "--unshare-pid",
    "--as-pid-1",
    "--unshare-ipc",
    "--cap-drop", "ALL",
    ...(options.network === true ? [] : ["--unshare-net"]),
    "--ro-bind", "/", "/",
    "--dev", "/dev",
    "--proc", "/proc",
    "--tmpfs", "/tmp",
    ...installedInTmp.flatMap((top) => ["--ro-bind-try", top, top]),
    "--bind", cwd, cwd,
    ...writable.flatMap((p) => ["--bind-try", p, p]),
    ...shownAgain(options.hidden ?? [], [cwd, ...writable, ...installedInTmp]).flatMap((p) => ["--tmpfs", p]),
    "--chdir", cwd
  ]
}

/** The hidden paths that a bound directory (`cwd`, a writable path, a program's top directory) would show. */
const shownAgain = (hidden: ReadonlyArray<string>, bound: ReadonlyArray<string>): Array<string> =>
  hidden.map((h) => resolve(h)).filter((h) => bound.some((b) => h === b || h.startsWith(b.endsWith("/") ? b : `${b}/`)))

const onPath = (name: string, path: string | undefined): Effect.Effect<string | undefined> =>
  Effect.promise(async () => {
    for (const dir of (path ?? "").split(delimiter).filter((d) => d !== "")) {
      const candidate = join(dir, name)
      try {
        await access(candidate, constants.X_OK)
        return candidate
      } catch {
        // not here
      }
    }
    return undefined
  })

/**
 * Looks for `bwrap` on PATH and checks that it really works here: it may be installed yet
 * refused by the kernel or a container (no user namespaces). Starts two short processes.
 */
export const probeBwrap = (launcher: ProcessLauncherShape, options: { readonly path?: string | undefined } = {}): Effect.Effect<BwrapProbe> =>
  Effect.gen(function*() {
    const path = yield* onPath("bwrap", options.path ?? process.env.PATH)
    if (path === undefined) return { works: false, problem: "bwrap is not installed (not on PATH)" }
    const dir = yield* Effect.promise(() => mkdtemp(join(tmpdir(), "dsh-bwrap-probe-")))
    // The version and a trial sandbox at once: the probe is on the first Bash call's path.
    const [version, trial] = yield* Effect.all([
      launcher.run({ command: path, args: ["--version"], timeout: "10 seconds" }).pipe(
        Effect.map((r) => r.stdout.trim().replace(/^bubblewrap\s*/, "") || undefined),
        Effect.orElseSucceed(() => undefined)
      ),
      launcher.run({ command: path, args: [...bwrapArgs({ cwd: dir }), "--", "true"], cwd: dir, timeout: "10 seconds" }).pipe(Effect.result)
    ], { concurrency: 2 }).pipe(Effect.ensuring(Effect.promise(() => rm(dir, { recursive: true, force: true }))))
    if (trial._tag === "Failure") return { path, version, works: false, problem: `bwrap could not be started: ${trial.failure.detail}` }
    if (trial.success.exitCode === 0) return { path, version, works: true }
    const said = trial.success.stderr.trim().split("\n").at(-1) ?? ""
    return { path, version, works: false, problem: `bwrap is installed but cannot create a sandbox here${said === "" ? "" : `: ${said}`}` }
  }).pipe(Effect.withSpan("Sandbox.probe"))

/** How one command is to run. */
export type SandboxPlan =
  | { readonly _tag: "Confined"; readonly command: string; readonly args: ReadonlyArray<string> }
  /** `warning` is set once per sandbox, the first time a command runs unconfined although `auto` looked for bwrap. */
  | { readonly _tag: "Unconfined"; readonly warning?: string | undefined }
  | { readonly _tag: "Refused"; readonly reason: string }

/**
 * The sandbox of a harness: its settings and the probe (run once, on first use). `plan` says
 * how to run a command in a working directory: wrapped in bwrap, as is, or not at all.
 */
export interface SandboxShape {
  readonly settings: SandboxSettings
  readonly probe: Effect.Effect<BwrapProbe>
  readonly plan: (command: { readonly command: string; readonly args?: ReadonlyArray<string> | undefined; readonly cwd: string }) => Effect.Effect<SandboxPlan>
}

/**
 * A sandbox over the launcher that runs the probe. `hidden`: paths no confined command may see
 * (see `bwrapArgs`).
 */
export const make = (
  settings: SandboxSettings,
  launcher: ProcessLauncherShape,
  options: { readonly path?: string | undefined; readonly hidden?: ReadonlyArray<string> | undefined } = {}
): Effect.Effect<SandboxShape> =>
  Effect.gen(function*() {
    const probe = yield* Effect.cached(probeBwrap(launcher, options))
    const warned = yield* Ref.make(false)
    const plan: SandboxShape["plan"] = (command) =>
      Effect.gen(function*() {
        if (settings.mode === "off") return { _tag: "Unconfined" }
        const found = yield* probe
        if (found.works && found.path !== undefined) {
          return {
            _tag: "Confined",
            command: found.path,
            args: [
              ...bwrapArgs({
                cwd: command.cwd,
                writable: settings.writable,
                network: settings.network,
                program: [command.command, ...(command.args ?? [])],
                hidden: options.hidden
              }),
              "--",
              command.command,
              ...(command.args ?? [])
            ]
          }
        }
        if (settings.mode === "on") {
          return { _tag: "Refused", reason: `[sandbox] mode = "on" but ${found.problem ?? "bwrap does not work"}; ${BWRAP_INSTALL_HINT}, or set [sandbox] mode = "auto" or "off"` }
        }
        const first = !(yield* Ref.getAndSet(warned, true))
        return {
          _tag: "Unconfined",
          warning: first ? `commands run unconfined: ${found.problem ?? "bwrap does not work"} ([sandbox] mode = "auto"; ${BWRAP_INSTALL_HINT})` : undefined
        }
      })
    return { settings, probe, plan }
  })

/**
 * A launcher whose every process runs in the sandbox (e.g. a vendor ACP agent with
 * `sandbox = true`): confined when bwrap works; with `on` and no bwrap, spawning fails and
 * says how to install it; with `auto` and no bwrap, the first spawn logs a warning.
 */
export const sandboxedLauncher = (launcher: ProcessLauncherShape, sandbox: SandboxShape): ProcessLauncherShape => {
  const wrap = <O extends SpawnOptions>(options: O): Effect.Effect<O, SubprocessError> =>
    Effect.gen(function*() {
      const plan = yield* sandbox.plan({ command: options.command, args: options.args, cwd: options.cwd ?? process.cwd() })
      switch (plan._tag) {
        case "Confined":
          return { ...options, command: plan.command, args: plan.args }
        case "Refused":
          return yield* new SubprocessError({ reason: "SpawnFailed", command: options.command, detail: plan.reason })
        case "Unconfined":
          if (plan.warning !== undefined) yield* Effect.logWarning(plan.warning)
          return options
      }
    })
  // One function: the wrapped spawn; `run` is derived from it.
  return fromSpawn((options) => Effect.flatMap(wrap(options), launcher.spawn))
}
