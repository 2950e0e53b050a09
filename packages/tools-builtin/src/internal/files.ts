import { randomBytes } from "node:crypto"
import type { Stats } from "node:fs"
import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises"
import { basename, dirname, join } from "node:path"
import { Tool } from "@dsh/tools"
import { Effect, Predicate } from "effect"

const errnoCode = (error: unknown): string | undefined =>
  Predicate.hasProperty(error, "code") && Predicate.isString(error.code) ? error.code : undefined

/** A file-system failure as a message the model can act on. */
export const fsError = (display: string, error: unknown): Tool.ToolError => {
  const code = errnoCode(error)
  const message = code === "ENOENT"
    ? `${display} does not exist`
    : code === "EACCES" || code === "EPERM"
    ? `permission denied: ${display}`
    : code === "EISDIR"
    ? `${display} is a directory`
    : code === "ENOTDIR"
    ? `a parent of ${display} is not a directory`
    : `${display}: ${Predicate.hasProperty(error, "message") ? String(error.message) : String(error)}`
  return new Tool.ToolError({ message })
}

/** Wraps a Promise-returning fs call, mapping its rejection to a ToolError about `display`. */
export const tryFs = <A>(display: string, run: () => Promise<A>): Effect.Effect<A, Tool.ToolError> =>
  Effect.tryPromise({ try: run, catch: (error) => fsError(display, error) })

/** Stats a path, or undefined when it does not exist. */
export const statOrUndefined = (display: string, path: string): Effect.Effect<Stats | undefined, Tool.ToolError> =>
  Effect.tryPromise({
    try: () => stat(path).then((s): Stats | undefined => s, (e: unknown) => errnoCode(e) === "ENOENT" ? undefined : Promise.reject(e)),
    catch: (error) => fsError(display, error)
  })

/** Text files hold no NUL bytes; a NUL in the first 64 KiB marks a file as binary. */
export const isBinary = (bytes: Uint8Array): boolean => bytes.subarray(0, 64 * 1024).includes(0)

/** Reads an existing regular text file, with clear errors for directories and binaries. */
export const readTextFile = (display: string, path: string): Effect.Effect<string, Tool.ToolError> =>
  Effect.gen(function*() {
    const info = yield* statOrUndefined(display, path)
    if (info === undefined) return yield* new Tool.ToolError({ message: `${display} does not exist` })
    if (info.isDirectory()) {
      return yield* new Tool.ToolError({ message: `${display} is a directory, not a file; use Glob to list its files` })
    }
    const bytes = yield* tryFs(display, () => readFile(path))
    if (isBinary(bytes)) {
      return yield* new Tool.ToolError({ message: `${display} is a binary file (it contains NUL bytes); refusing to read it as text` })
    }
    return bytes.toString("utf8")
  })

/**
 * Writes through a temporary file in the same directory and renames it over the target, so a
 * reader never sees a half-written file. Creates parent directories; keeps an existing mode.
 */
export const writeFileAtomic = (display: string, path: string, content: string): Effect.Effect<void, Tool.ToolError> =>
  Effect.gen(function*() {
    const dir = dirname(path)
    yield* tryFs(display, () => mkdir(dir, { recursive: true }))
    const previous = yield* statOrUndefined(display, path)
    if (previous?.isDirectory() === true) {
      return yield* new Tool.ToolError({ message: `${display} is a directory; give a file path` })
    }
    const temp = join(dir, `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`)
    yield* tryFs(display, () =>
      writeFile(temp, content, { flag: "wx" })
        .then(() => previous === undefined ? undefined : chmod(temp, previous.mode & 0o7777))
        .then(() => rename(temp, path))
        .catch((error: unknown) => rm(temp, { force: true }).then(() => Promise.reject(error), () => Promise.reject(error))))
  })
