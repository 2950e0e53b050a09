// Cold-process timing for the kit's benches: fresh `node` processes, run round-robin so load on the
// machine hits every case alike, timed from spawn to exit; and the module trace of one process.
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"

export const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN

export const PACKAGES = resolve(import.meta.dirname, "..", "..", "..")

/** A fresh process: `node [flags] --input-type=module -e code` in `cwd`, with no `@dsh/source` condition (the built dist, as a user gets it). */
export interface Cold {
  readonly code: string
  readonly cwd: string
  readonly flags?: ReadonlyArray<string>
  readonly env?: Readonly<Record<string, string>>
}

// The child reports its own CPU time (all threads, user + system) as it exits: with other work on
// the machine, wall time swings with the load and CPU time much less.
const REPORT_CPU = `\nprocess.on("exit", () => { const u = process.cpuUsage(); process.stdout.write("\\n@cpu " + (u.user + u.system) / 1000) })`

const run = (c: Cold, extraFlags: ReadonlyArray<string> = [], extraEnv: Readonly<Record<string, string>> = {}) => {
  const start = performance.now()
  const r = spawnSync(process.execPath, [...(c.flags ?? []), ...extraFlags, "--input-type=module", "-e", c.code + REPORT_CPU], {
    cwd: c.cwd,
    encoding: "utf8",
    env: { ...process.env, ...c.env, ...extraEnv, NODE_OPTIONS: "" }
  })
  const ms = performance.now() - start
  if (r.status !== 0) throw new Error(`cold process failed (${r.status}): ${r.stderr.slice(-600)}`)
  const cpu = Number(/@cpu ([\d.]+)/.exec(r.stdout)?.[1] ?? Number.NaN)
  return { ms, cpu, stdout: r.stdout }
}

/** Median wall time and median CPU time of `rounds` fresh processes per case, the cases interleaved. */
export const timeCold = <K extends string>(cases: Readonly<Record<K, Cold>>, rounds: number): { readonly wall: Record<K, number>; readonly cpu: Record<K, number> } => {
  const names = Object.keys(cases) as Array<K>
  for (const name of names) run(cases[name]) // warm the OS page cache
  const wall = Object.fromEntries(names.map((n) => [n, [] as Array<number>])) as Record<K, Array<number>>
  const cpu = Object.fromEntries(names.map((n) => [n, [] as Array<number>])) as Record<K, Array<number>>
  for (let r = 0; r < rounds; r++) {
    for (const name of names) {
      const one = run(cases[name])
      wall[name].push(one.ms)
      cpu[name].push(one.cpu)
    }
  }
  const medians = (xs: Record<K, Array<number>>) => Object.fromEntries(names.map((n) => [n, median(xs[n])])) as Record<K, number>
  return { wall: medians(wall), cpu: medians(cpu) }
}

/** The URLs of every module `c` loads, in load order (through the `registerHooks` tracer). */
export const traceModules = (c: Cold): ReadonlyArray<string> => {
  const dir = mkdtempSync(join(tmpdir(), "dsh-bench-trace-"))
  const out = join(dir, "modules.txt")
  run(c, ["--import", new URL("./trace-modules.mjs", import.meta.url).href], { DSH_TRACE_MODULES: out })
  const urls = readFileSync(out, "utf8").split("\n").filter((l) => l !== "")
  rmSync(dir, { recursive: true, force: true })
  return urls
}

/** A package of a module URL: `effect`, `zod`, `@dsh/kit`, `node:fs`. */
export const packageOf = (url: string): string => {
  if (url.startsWith("node:")) return "node:"
  const dsh = /\/packages\/([^/]+)\/dist\//.exec(url)
  if (dsh !== null && !url.includes("/node_modules/")) return `@dsh/${dsh[1]}`
  const parts = url.split("/node_modules/").at(-1)?.split("/") ?? []
  return parts[0]?.startsWith("@") === true ? `${parts[0]}/${parts[1]}` : (parts[0] ?? url)
}

/**
 * An app directory as `npm install` leaves it for a user: `node_modules/<name>` links to each
 * workspace package named (its `exports` → dist) and to `effect`; imports inside each package
 * resolve from its real path, as they would from an installed copy.
 */
export const appWith = (dshPackages: ReadonlyArray<string>) => {
  for (const name of dshPackages) {
    if (!existsSync(join(PACKAGES, name, "dist", "index.js"))) throw new Error(`packages/${name}/dist is missing: run \`pnpm run build\` first (this bench measures the built packages)`)
  }
  const app = mkdtempSync(join(tmpdir(), "dsh-bench-app-"))
  mkdirSync(join(app, "node_modules", "@dsh"), { recursive: true })
  for (const name of dshPackages) symlinkSync(join(PACKAGES, name), join(app, "node_modules", "@dsh", name), "dir")
  const effect = realpathSync(join(PACKAGES, "kit", "node_modules", "effect"))
  symlinkSync(effect, join(app, "node_modules", "effect"), "dir")
  return { dir: app, dispose: () => rmSync(app, { recursive: true, force: true }) }
}

export const here = dirname(import.meta.filename)
