import type { Dirent, Stats } from "node:fs"
import * as Fs from "node:fs/promises"
import { Effect } from "effect"

/**
 * The few filesystem calls discovery needs, as Effects whose failure is a plain value
 * (`FsFailure`) that callers turn into a skip reason, a warning or a typed error.
 */

export interface FsFailure {
  /** The Node error code (`ENOENT`, `EACCES`, …) when there is one. */
  readonly code: string | undefined
  readonly message: string
}

const toFailure = (cause: unknown): FsFailure => {
  const code = typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string"
    ? cause.code
    : undefined
  const message = cause instanceof Error ? cause.message : String(cause)
  return { code, message }
}

export const isMissing = (failure: FsFailure): boolean => failure.code === "ENOENT" || failure.code === "ENOTDIR"

export const stat = (path: string): Effect.Effect<Stats, FsFailure> =>
  Effect.tryPromise({ try: () => Fs.stat(path), catch: toFailure })

export const realpath = (path: string): Effect.Effect<string, FsFailure> =>
  Effect.tryPromise({ try: () => Fs.realpath(path), catch: toFailure })

export const readdir = (path: string): Effect.Effect<ReadonlyArray<Dirent>, FsFailure> =>
  Effect.tryPromise({ try: () => Fs.readdir(path, { withFileTypes: true }), catch: toFailure })

export const readText = (path: string): Effect.Effect<string, FsFailure> =>
  Effect.tryPromise({ try: () => Fs.readFile(path, "utf8"), catch: toFailure })

export const exists = (path: string): Effect.Effect<boolean> =>
  stat(path).pipe(Effect.as(true), Effect.orElseSucceed(() => false))

/**
 * Reads at most `limit + 1` bytes, so a huge file is never read whole; `truncated` says the
 * file was longer than `limit` (even if it grew after a `stat`).
 */
export const readBounded = (
  path: string,
  limit: number
): Effect.Effect<{ readonly bytes: Uint8Array; readonly truncated: boolean }, FsFailure> =>
  Effect.tryPromise({
    try: async () => {
      const handle = await Fs.open(path, "r")
      try {
        const buffer = Buffer.alloc(limit + 1)
        let length = 0
        while (length < buffer.length) {
          const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length)
          if (bytesRead === 0) break
          length += bytesRead
        }
        return { bytes: buffer.subarray(0, Math.min(length, limit)), truncated: length > limit }
      } finally {
        await handle.close()
      }
    },
    catch: toFailure
  })

/**
 * Replaces `path` atomically: write a sibling temporary file, then rename it over `path`.
 * Owner-only (0600), like everything under `$DSH_HOME`; the explicit mode cannot be widened by a umask.
 */
export const writeAtomic = (path: string, text: string): Effect.Effect<void, FsFailure> =>
  Effect.tryPromise({
    try: () => {
      const tmp = `${path}.${process.pid}.${crypto.randomUUID()}.tmp`
      return Fs.writeFile(tmp, text, { encoding: "utf8", flush: true, mode: 0o600, flag: "wx" })
        .then(() => Fs.rename(tmp, path))
        .catch((cause: unknown) => Fs.rm(tmp, { force: true }).then(() => Promise.reject(cause)))
    },
    catch: toFailure
  })

/** `mkdir -p`; what it creates is owner-only (0700): `$DSH_HOME` holds sessions and decisions. */
export const mkdirp = (path: string): Effect.Effect<void, FsFailure> =>
  Effect.tryPromise({ try: () => Fs.mkdir(path, { recursive: true, mode: 0o700 }), catch: toFailure }).pipe(Effect.asVoid)
