/**
 * The file store's only contact with `node:fs`, in six modules: this one (modes, typed errors,
 * temp names), `fsDirs` (directories), `fsWrites` (atomic replaces), `fsReads`, `fsAppender` and
 * `fsLog` (the state's change log).
 * The helpers are plain Promise code (so `try`/`finally` can close handles); Effect code calls
 * them through `io`, which turns any rejection into a typed `SessionError` with reason `Io`.
 */
import { randomUUID } from "node:crypto"
import { basename, dirname, join } from "node:path"
import { Effect } from "effect"
import { SessionError } from "../SessionError.ts"

/**
 * Modes of everything the store writes. Sessions hold prompts, tool output and whatever secret a
 * tool printed, so only the owner may read them. The modes are passed explicitly to every
 * mkdir/open: a umask can only narrow them (022, 000 or 077 all give these).
 */
export const PRIVATE_DIR = 0o700
export const PRIVATE_FILE = 0o600

/** The errno code of a Node fs error (`ENOENT`, …), if it has one. */
export const errorCode = (cause: unknown): string | undefined =>
  typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string"
    ? cause.code
    : undefined

const describe = (cause: unknown): string => cause instanceof Error ? cause.message : String(cause)

/** The typed error for a failed file operation: what we did, where, and why. */
export const ioError = (operation: string, path: string, cause: unknown): SessionError =>
  new SessionError({ reason: "Io", detail: `cannot ${operation} ${path}: ${describe(cause)}` })

/**
 * Runs one fs Promise as an Effect whose only failure is a `SessionError` (`Io`). It is
 * uninterruptible: the Promise cannot be cancelled, so an interrupted fiber must still wait
 * for it, or a lock would be released while a write is still landing.
 */
export const io = <A>(operation: string, path: string, run: () => Promise<A>): Effect.Effect<A, SessionError> =>
  Effect.uninterruptible(Effect.tryPromise({ try: run, catch: (cause) => ioError(operation, path, cause) }))

/**
 * Runs one synchronous fs call as an Effect failing with a `SessionError` (`Io`). For the small
 * metadata operations of the delegation path (a stat, a lock file, a state write to the page
 * cache): a few microseconds each on the event loop, where a thread-pool call costs a round trip
 * through the loop — on a loaded machine a scheduler wake-up each, and with them about 110 per
 * delegation the file store's overhead was mostly waiting. fsyncs stay asynchronous.
 */
export const ioSync = <A>(operation: string, path: string, run: () => A): Effect.Effect<A, SessionError> =>
  Effect.try({ try: run, catch: (cause) => ioError(operation, path, cause) })

/**
 * A fresh temp name in `path`'s directory (same filesystem, so a rename or link is atomic). The
 * random part comes from `randomUUID`, which draws on a cached pool: `randomBytes` per name was a
 * system call per write.
 */
export const tempBeside = (path: string): string =>
  join(dirname(path), `.${basename(path)}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`)

/** True for `writeFileAtomic`'s temp files, which remain only if a process died mid-write. */
export const isTempFile = (name: string): boolean => name.startsWith(".") && name.endsWith(".tmp")
