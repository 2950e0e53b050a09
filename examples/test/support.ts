// Packs the workspace and installs the tarballs into a copy of an example project with npm,
// the way a harness author installs dsh from the registry. Shared by the test and the benchmark.
import { execFile, spawnSync, type SpawnSyncReturns } from "node:child_process"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

export const ROOT = resolve(import.meta.dirname, "../..")
const PACKAGES = join(ROOT, "packages")

/** The pinned pnpm of `npm run setup`, else whatever is on PATH. */
const pnpm = (): string => {
  const local = join(ROOT, ".tools", "pnpm", "node_modules", ".bin", "pnpm")
  return existsSync(local) ? local : "pnpm"
}

export const run = (command: string, args: ReadonlyArray<string>, cwd: string, env: NodeJS.ProcessEnv = {}): SpawnSyncReturns<string> =>
  spawnSync(command, [...args], { cwd, encoding: "utf8", env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 })

export const must = (command: string, args: ReadonlyArray<string>, cwd: string, env: NodeJS.ProcessEnv = {}): string => {
  const r = run(command, args, cwd, env)
  if (r.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} (in ${cwd}) exited ${r.status}\n${r.stdout}\n${r.stderr}`)
  }
  return r.stdout
}

interface Manifest {
  readonly name: string
  readonly version: string
  readonly private?: boolean
  readonly dependencies?: Record<string, string>
  readonly peerDependencies?: Record<string, string>
  readonly exports?: Record<string, unknown>
}

/**
 * Every published workspace package by npm name, with its directory. Private packages (the
 * test infrastructure, `@dsh/testing-pg`) are never packed, installed or published.
 */
export const workspacePackages = (): Map<string, { readonly dir: string; readonly manifest: Manifest }> =>
  new Map(readdirSync(PACKAGES).filter((d) => existsSync(join(PACKAGES, d, "package.json"))).flatMap((d) => {
    const manifest = JSON.parse(readFileSync(join(PACKAGES, d, "package.json"), "utf8")) as Manifest
    return manifest.private === true ? [] : [[manifest.name, { dir: join(PACKAGES, d), manifest }] as const]
  }))

/** `pnpm -r pack` of the published packages into a fresh directory; returns the tarball of each package by name. */
export const packWorkspace = (): Map<string, string> => {
  const dest = mkdtempSync(join(tmpdir(), "dsh-packs-"))
  const filters = [...workspacePackages().keys()].flatMap((name) => ["--filter", name])
  must(pnpm(), ["-r", ...filters, "--silent", "pack", "--pack-destination", dest], ROOT)
  const byFile = new Map(readdirSync(dest).map((f) => [f, join(dest, f)]))
  const tarballs = new Map<string, string>()
  for (const [name, { manifest }] of workspacePackages()) {
    const file = `${name.replace("@", "").replace("/", "-")}-${manifest.version}.tgz`
    const path = byFile.get(file)
    if (path === undefined) throw new Error(`pnpm pack wrote no ${file}`)
    tarballs.set(name, path)
  }
  return tarballs
}

/** The workspace packages with a `./testing` entry (fixtures that must import with no test runner). */
export const testingPackages = (): Array<string> =>
  [...workspacePackages()].filter(([, { manifest }]) => manifest.exports?.["./testing"] !== undefined).map(([name]) => name)

/** `names` and every `@dsh/*` package they depend on, transitively. */
export const closure = (names: Iterable<string>): Set<string> => {
  const all = workspacePackages()
  const seen = new Set<string>()
  const visit = (name: string) => {
    if (seen.has(name) || !all.has(name)) return
    seen.add(name)
    for (const dep of Object.keys(all.get(name)!.manifest.dependencies ?? {})) visit(dep)
  }
  for (const n of names) visit(n)
  return seen
}

export interface InstallOptions {
  /** Workspace packages to install as well (each with the `@dsh/*` packages it depends on). */
  readonly packages?: ReadonlyArray<string> | undefined
  /** Registry packages to add to the project's dependencies, by name, with their version ranges. */
  readonly registry?: Readonly<Record<string, string>> | undefined
}

/**
 * Copies `examples/<example>` to a temporary directory and points every `@dsh/*` dependency
 * (and theirs) at its packed tarball, everything else at the registry. Returns the project
 * directory, ready for `npm install`.
 */
const prepareExample = (example: string, tarballs: ReadonlyMap<string, string>, options: InstallOptions): string => {
  const dir = join(mkdtempSync(join(tmpdir(), "dsh-example-")), example)
  mkdirSync(dir, { recursive: true })
  cpSync(join(ROOT, "examples", example), dir, { recursive: true, filter: (src) => !src.includes("node_modules") })
  const manifestPath = join(dir, "package.json")
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as Manifest & { dependencies: Record<string, string> }
  const ours = closure([...Object.keys(manifest.dependencies).filter((n) => n.startsWith("@dsh/")), ...options.packages ?? []])
  // Transitive @dsh packages are direct dependencies here, so npm never asks the registry for them.
  for (const name of ours) manifest.dependencies[name] = `file:${tarballs.get(name)}`
  for (const [name, range] of Object.entries(options.registry ?? {})) manifest.dependencies[name] ??= range
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`)
  return dir
}

const NPM_INSTALL = ["install", "--no-audit", "--no-fund", "--loglevel=error"] as const

/**
 * Copies `examples/<example>` to a temporary directory and installs it with npm, every
 * `@dsh/*` dependency (and theirs) taken from its packed tarball, everything else from the
 * registry. Returns the project directory.
 */
export const installExample = (example: string, tarballs: ReadonlyMap<string, string>, options: InstallOptions = {}): string => {
  const dir = prepareExample(example, tarballs, options)
  must("npm", NPM_INSTALL, dir)
  return dir
}

/**
 * `installExample` for several projects at once: their `npm install`s run side by side (each
 * mostly waits on the disk and the cache), so a second project costs little of the run's time.
 */
export const installExamples = async <const P extends ReadonlyArray<{ readonly example: string; readonly options?: InstallOptions | undefined }>>(
  tarballs: ReadonlyMap<string, string>,
  projects: P
): Promise<{ -readonly [K in keyof P]: string }> => {
  const dirs = projects.map(({ example, options }) => prepareExample(example, tarballs, options ?? {}))
  await Promise.all(dirs.map((dir) =>
    new Promise<void>((resolve, reject) => {
      execFile("npm", NPM_INSTALL, { cwd: dir, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
        error === null ? resolve() : reject(new Error(`npm install (in ${dir}) failed: ${error.message}\n${stdout}\n${stderr}`)))
    })))
  // One directory per project, in order: the mapped tuple type says so, `map` cannot.
  return dirs as { -readonly [K in keyof P]: string }
}

/** The package a bare import specifier names: `@scope/name` or `name`; undefined for `node:` and relative ones. */
const packageOf = (specifier: string): string | undefined => {
  if (specifier.startsWith(".") || specifier.startsWith("node:") || specifier.startsWith("/")) return undefined
  const parts = specifier.split("/")
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]
}

/** Every package imported by the `.ts` files of `dir`. */
export const importedPackages = (dir: string): Set<string> => {
  const names = new Set<string>()
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts"))) {
    for (const m of readFileSync(join(dir, file), "utf8").matchAll(/^import\s[^;]*?from\s+["']([^"']+)["']|^import\s+["']([^"']+)["']/gm)) {
      const name = packageOf(m[1] ?? m[2] ?? "")
      if (name !== undefined) names.add(name)
    }
  }
  return names
}

/**
 * What an app needs installed to run the files of `dir`: the workspace packages they import,
 * and their other imports with the version range the workspace itself depends on.
 */
export const dependenciesOf = (dir: string): { readonly packages: ReadonlyArray<string>; readonly registry: Readonly<Record<string, string>> } => {
  const all = workspacePackages()
  const ranges = new Map<string, string>()
  for (const { manifest } of all.values()) {
    for (const [name, range] of Object.entries({ ...manifest.peerDependencies, ...manifest.dependencies })) {
      if (!range.startsWith("workspace:")) ranges.set(name, range)
    }
  }
  const packages: Array<string> = []
  const registry: Record<string, string> = {}
  for (const name of importedPackages(dir)) {
    if (all.has(name)) packages.push(name)
    else {
      const range = ranges.get(name)
      if (range === undefined) throw new Error(`${dir} imports ${name}, which no workspace package depends on: add a version range for it`)
      registry[name] = range
    }
  }
  return { packages, registry }
}

/** Bytes of every file under `dir`. */
export const treeBytes = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce((n, e) => {
    const path = join(dir, e.name)
    return n + (e.isDirectory() ? treeBytes(path) : e.isFile() ? statSync(path).size : 0)
  }, 0)

/** The packages a minimal harness installs (the packaging issue's list). */
export const MINIMAL_HARNESS = [
  "@dsh/agent", "@dsh/subagent", "@dsh/subagent-inprocess", "@dsh/tool-subagent", "@dsh/llm-scripted",
  "@dsh/tools", "@dsh/core", "@dsh/llm", "@dsh/session"
] as const
