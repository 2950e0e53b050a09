// What confines a process, read cheaply (a few /proc files): a start is served by a spare only
// when both are confined alike, or a caller the kernel holds back (a nice level, an rlimit, a
// cgroup, no-new-privs, seccomp, an LSM label, another user) would run its work unconfined.
import { readFileSync, readlinkSync } from "node:fs"
import { getPriority } from "node:os"

/**
 * The confinement of a process, one field per kind. A value that cannot be read is
 * `unreadable:<code>`, so two processes compare equal only when both read it alike.
 */
export interface Confinement {
  readonly nice: string
  /** Every row of `/proc/self/limits` (soft and hard limits). */
  readonly limits: string
  readonly cgroup: string
  /** `NoNewPrivs`, `Seccomp`, `Seccomp_filters` and the capability sets of `/proc/self/status`. */
  readonly privileges: string
  /** The LSM label (`/proc/self/attr/current`: AppArmor, SELinux); absent on most machines. */
  readonly label: string
  readonly ids: string
  /** The namespaces and root directory. */
  readonly namespaces: string
}

const unreadable = (error: unknown): string => `unreadable:${(error as NodeJS.ErrnoException).code ?? "?"}`

const read = (path: string): string => {
  try {
    return readFileSync(path, "utf8")
  } catch (error) {
    return unreadable(error)
  }
}

const link = (path: string): string => {
  try {
    return readlinkSync(path)
  } catch (error) {
    return unreadable(error)
  }
}

const PRIVILEGE_FIELDS = /^(NoNewPrivs|Seccomp|Seccomp_filters|CapInh|CapPrm|CapEff|CapBnd|CapAmb):/

const privileges = (): string => {
  const status = read("/proc/self/status")
  return status.startsWith("unreadable:") ? status : status.split("\n").filter((l) => PRIVILEGE_FIELDS.test(l)).join("\n")
}

const nice = (): string => {
  try {
    return String(getPriority())
  } catch (error) {
    return unreadable(error)
  }
}

/** This process's confinement, read now. */
export const confinement = (): Confinement => ({
  nice: nice(),
  limits: read("/proc/self/limits"),
  cgroup: read("/proc/self/cgroup"),
  privileges: privileges(),
  // Trailing NULs and newlines differ between LSMs, not between processes.
  label: read("/proc/self/attr/current").replace(/[\0\n]+$/, ""),
  ids: [process.getuid?.(), process.geteuid?.(), process.getgid?.(), process.getegid?.(), ...(process.getgroups?.() ?? [])].join(","),
  namespaces: [...["mnt", "net", "pid", "user", "uts", "ipc", "cgroup"].map((ns) => link(`/proc/self/ns/${ns}`)), link("/proc/self/root")].join(",")
})

/**
 * The kinds in which `a` and `b` differ (empty: confined alike). Anything that is not a whole
 * confinement (an older launcher sent none) differs in every kind.
 */
export const confinementDiffers = (a: Confinement | undefined, b: Confinement | undefined): ReadonlyArray<string> => {
  const kinds: ReadonlyArray<keyof Confinement> = ["nice", "limits", "cgroup", "privileges", "label", "ids", "namespaces"]
  if (typeof a !== "object" || a === null || typeof b !== "object" || b === null) return kinds
  return kinds.filter((k) => typeof a[k] !== "string" || a[k] !== b[k])
}
