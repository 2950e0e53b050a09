import { randomUUID } from "node:crypto"

const pad = (n: number, w = 2) => String(n).padStart(w, "0")

/**
 * A readable, time-sortable identifier: `20261129T175430-3f9a1c2b`.
 * Sorting ids as strings sorts them by creation time (to the second), which keeps
 * `sessions list` and directory listings in a useful order without reading any file.
 */
export const makeId = (now: Date = new Date()): string => {
  const stamp = `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}` +
    `T${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}${pad(now.getUTCSeconds())}`
  // A v4 UUID's first 8 hex digits are random; `randomUUID` draws on a cached pool, where
  // `randomBytes` was a system call per id (one per child admitted).
  return `${stamp}-${randomUUID().slice(0, 8)}`
}

/** Session, run and child ids must be safe as a single path segment. */
export const isSafeId = (id: string): boolean => /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(id)
