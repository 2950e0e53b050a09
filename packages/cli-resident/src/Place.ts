// Where a resident dsh listens, and which build and Node it must be to serve a given start.
// No Effect here: this runs in the launcher, before anything heavy loads.
import { lstatSync, mkdirSync, readlinkSync, statSync } from "node:fs"
import { join } from "node:path"

/**
 * The per-user directory of resident sockets. Always under `/tmp`, whatever `TMPDIR` says:
 * the sandbox gives every confined process a private /tmp (and masks this directory when a
 * bound path would show it), so no sandboxed process can ask a resident to run unconfined.
 */
export const residentDir = (uid: number): string => `/tmp/dsh-${uid}`

export interface Place {
  readonly dir: string
  /** The resident's socket: one per build, Node binary and Node-level settings. */
  readonly socket: string
  readonly key: string
}

/** FNV-1a, 52 bits: a short stable name, not a secret. */
const fnv = (text: string): string => {
  let h = 0xcbf29ce484222325n
  for (let i = 0; i < text.length; i++) h = BigInt.asUintN(64, (h ^ BigInt(text.charCodeAt(i))) * 0x100000001b3n)
  return (h & 0xfffffffffffffn).toString(36)
}

/**
 * What a resident shares with the start it serves and cannot change afterwards: the build
 * (the entry's identity: a rebuild rewrites it, and it names every chunk it loads), the Node
 * binary, its flags, the environment Node itself reads at start-up (`NODE_*`, `UV_*`) and the
 * namespaces it runs in; and its name (`DSH_RESIDENT`, when it names one): starts that give
 * another name share another one.
 */
export const residentKey = (entry: string, env: NodeJS.ProcessEnv, name: string, execArgv: ReadonlyArray<string> = process.execArgv): string => {
  const s = statSync(entry)
  const nodeEnv = Object.entries(nodeEnvironment(env)).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${k}=${v}`)
  return fnv([name, entry, s.ino, s.size, s.mtimeMs, process.execPath, process.version, ...execArgv, ...nodeEnv, ...namespaces()].join("\0"))
}

/** The environment Node itself reads at start-up (`NODE_*`, `UV_*`): all a resident is started with. */
export const nodeEnvironment = (env: NodeJS.ProcessEnv): Record<string, string> =>
  Object.fromEntries(Object.entries(env).filter((e): e is [string, string] =>
    e[1] !== undefined && (e[0].startsWith("NODE_") || e[0].startsWith("UV_"))))

/**
 * The Linux namespaces and root this process sees: a start from another mount, network, PID or
 * user namespace (a container, `unshare`, `ip netns exec`) or a chroot would see other files,
 * another network or other pids than a resident made elsewhere, so it gets a resident of its own.
 */
const namespaces = (): Array<string> =>
  [...["mnt", "net", "pid", "user", "uts", "ipc"].map((ns) => link(`/proc/self/ns/${ns}`)), link("/proc/self/root")]

const link = (path: string): string => {
  try {
    return readlinkSync(path)
  } catch {
    return ""
  }
}

/** This user's resident directory, or the one `DSH_RESIDENT_DIR` names. */
export const residentDirOf = (uid: number, env: NodeJS.ProcessEnv): string =>
  env.DSH_RESIDENT_DIR !== undefined && env.DSH_RESIDENT_DIR !== "" ? env.DSH_RESIDENT_DIR : residentDir(uid)

/**
 * The resident directory, made if missing (0700); a problem unless it is a real directory only
 * this user can enter. `DSH_RESIDENT_DIR` names another one (for tests; the same checks hold).
 */
export const ownDirectory = (uid: number, env: NodeJS.ProcessEnv = process.env): { readonly dir: string } | { readonly problem: string } => {
  const dir = residentDirOf(uid, env)
  const s = lstatSync(dir, { throwIfNoEntry: false }) ?? makeDirectory(dir)
  if (s === undefined) return { problem: `${dir} cannot be made` }
  if (!s.isDirectory()) return { problem: `${dir} is not a directory` }
  if (s.uid !== uid) return { problem: `${dir} belongs to another user (uid ${s.uid})` }
  if ((s.mode & 0o077) !== 0) return { problem: `${dir} is open to others (mode ${(s.mode & 0o777).toString(8)})` }
  return { dir }
}

/** Makes `dir` (0700) and says what is there then: ours, or one another process made meanwhile. */
const makeDirectory = (dir: string) => {
  try {
    mkdirSync(dir, { mode: 0o700 })
  } catch {
    // made meanwhile (checked by the caller), or it cannot be made
  }
  return lstatSync(dir, { throwIfNoEntry: false })
}

/** Where this start's resident is, or the problem why there can be none (no uid, no private directory). */
export const placeFor = (
  entry: string,
  env: NodeJS.ProcessEnv,
  name: string,
  execArgv: ReadonlyArray<string> = process.execArgv
): Place | { readonly problem: string } => {
  const uid = process.getuid?.()
  if (uid === undefined) return { problem: "no user id on this platform" }
  const own = ownDirectory(uid, env)
  if ("problem" in own) return own
  try {
    const key = residentKey(entry, env, name, execArgv)
    return { dir: own.dir, key, socket: join(own.dir, `${key}.sock`) }
  } catch (error) {
    return { problem: `cannot read ${entry}: ${(error as NodeJS.ErrnoException).code ?? String(error)}` }
  }
}
