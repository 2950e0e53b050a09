import { Effect } from "effect"
import { lstat, readdir } from "node:fs/promises"
import { join } from "node:path"

/** The first entry under `$DSH_HOME` that other users can read, with its mode (for `dsh doctor`). */
export interface Exposed {
  readonly path: string
  /** Octal, as `ls -l` and `chmod` spell it (`755`). */
  readonly mode: string
}

/**
 * What holds prompts, tool output and decisions: the home itself, `sessions/`, `logs/` and the
 * trust store. `agents/`, `config.toml` and installed providers are the user's own and may be shared.
 */
const PRIVATE_ENTRIES = ["sessions", "logs", "trusted-projects.json" /* @dsh/agent TRUST_FILE_NAME */]

const exposedMode = (mode: number): boolean => (mode & 0o077) !== 0

const octal = (mode: number): string => (mode & 0o777).toString(8).padStart(3, "0")

/** Depth-first, stopping at the first group- or world-accessible entry; links are not followed. */
const scan = async (path: string): Promise<Exposed | undefined> => {
  const stats = await lstat(path).catch(() => undefined)
  if (stats === undefined || stats.isSymbolicLink()) return undefined
  if (exposedMode(stats.mode)) return { path, mode: octal(stats.mode) }
  if (!stats.isDirectory()) return undefined
  const names = await readdir(path).catch(() => [] as Array<string>)
  for (const name of names) {
    const found = await scan(join(path, name))
    if (found !== undefined) return found
  }
  return undefined
}

/**
 * The first private entry under `home` that is group- or world-accessible (made before dsh set
 * explicit modes, or widened by hand), or undefined when all are owner-only or absent.
 */
export const findExposed = (home: string): Effect.Effect<Exposed | undefined> =>
  Effect.promise(async () => {
    const top = await lstat(home).catch(() => undefined)
    if (top === undefined) return undefined
    if (exposedMode(top.mode)) return { path: home, mode: octal(top.mode) }
    for (const name of PRIVATE_ENTRIES) {
      const found = await scan(join(home, name))
      if (found !== undefined) return found
    }
    return undefined
  })

/** A path as one shell word. */
const shellWord = (path: string): string => /^[\w./@%+=:,-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`

/** The one warning line `dsh doctor` prints for an exposed entry, with the command that fixes it. */
export const exposedWarning = (home: string, exposed: Exposed): string =>
  `warning     ${exposed.path} is open to other users (mode ${exposed.mode}); sessions hold prompts and tool output: chmod -R go-rwx ${shellWord(home)}`
