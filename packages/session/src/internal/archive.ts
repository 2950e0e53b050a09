/**
 * The file store's archive of children's transcripts: `<session>/archive/<child>.wire.jsonl.gz`,
 * one gzip member per child (gzip, not brotli: its trailer records the original size, so the
 * archive needs no index file; see the session bench for the figures). Plain Promise code, like
 * `fs.ts`; Effect code calls it through `io`.
 *
 * Crash safety rests on one rule: **while the live transcript exists, it is authoritative**. An
 * archive is written to a temp file, fsynced and renamed into place before the live file is
 * removed; a restore writes the live file the same way before the archive is removed. A crash
 * between the two steps leaves both, and the next archive or restore settles them: when the live
 * file begins with the archive's content the archive is a leftover; otherwise (a transcript
 * started afresh beside an archive) the archive's content is put in front of the live file's.
 */
import { createReadStream, createWriteStream } from "node:fs"
import { open, readFile, rename, stat, unlink } from "node:fs/promises"
import { basename, dirname, join } from "node:path"
import { Writable } from "node:stream"
import { pipeline } from "node:stream/promises"
import { errorCode, PRIVATE_FILE, tempBeside } from "./fs.ts"
import { ensureDir, listDir, syncDir } from "./fsDirs.ts"
import { openIfExists } from "./fsReads.ts"

// zlib loads when an archive is first read or written: an ES import of it (and of node:util)
// would cost every start of every store (~10 ms), and most runs never archive.
const zlib = () => process.getBuiltinModule("node:zlib")
const gunzipAsync = (compressed: Buffer): Promise<Buffer> =>
  new Promise((resolve, reject) => zlib().gunzip(compressed, (error, result) => (error ? reject(error) : resolve(result))))

/** The suffix of an archived transcript in `archive/`. */
export const ARCHIVE_SUFFIX = ".wire.jsonl.gz"

/** Where a child's archived transcript lives. */
export const archivePathOf = (sessionDir: string, name: string): string => join(sessionDir, "archive", `${name}${ARCHIVE_SUFFIX}`)

/** What is in the archive for one child. */
export interface ArchiveEntry {
  readonly bytes: number
  readonly archivedBytes: number
  readonly archivedAt: Date
}

const sizeOf = async (path: string): Promise<number | undefined> => {
  try {
    return (await stat(path)).size
  } catch (cause) {
    if (errorCode(cause) === "ENOENT") return undefined
    throw cause
  }
}

/** The archive's sizes, read from the file and its gzip trailer (ISIZE: the original size mod 2^32). */
export const archiveEntry = async (path: string): Promise<ArchiveEntry | undefined> => {
  const handle = await openIfExists(path)
  if (handle === undefined) return undefined
  try {
    const s = await handle.stat()
    const trailer = Buffer.alloc(4)
    if (s.size >= 18) await handle.read(trailer, 0, 4, s.size - 4)
    return { bytes: trailer.readUInt32LE(0), archivedBytes: s.size, archivedAt: s.mtime }
  } finally {
    await handle.close().catch(() => undefined)
  }
}

/** The archive's decompressed content, or undefined when there is none. */
export const readArchive = async (path: string): Promise<Buffer | undefined> => {
  let compressed
  try {
    compressed = await readFile(path)
  } catch (cause) {
    if (errorCode(cause) === "ENOENT") return undefined
    throw cause
  }
  return await gunzipAsync(compressed)
}

/**
 * Removes temp files an interrupted archive or restore of `path` left beside it. Call only while
 * holding the session's lease: no other writer of `path` can be at work then.
 */
const removeStaleTemps = async (path: string): Promise<void> => {
  const prefix = `.${basename(path)}.`
  for (const entry of await listDir(dirname(path))) {
    if (entry.isFile() && entry.name.startsWith(prefix) && entry.name.endsWith(".tmp")) {
      await unlink(join(dirname(path), entry.name)).catch(() => undefined)
    }
  }
}

/** Counts what is written and drops it: a dry run's compressed size. */
const counter = () => {
  let bytes = 0
  const sink = new Writable({
    write: (chunk: Buffer, _encoding, done) => {
      bytes += chunk.length
      done()
    }
  })
  return { sink, bytes: () => bytes }
}

/** The bytes of `sources` in order: files streamed, buffers as they are (one file: its stream alone). */
const streamOf = (sources: ReadonlyArray<string | Buffer>): NodeJS.ReadableStream | AsyncIterable<Buffer> => {
  const [only] = sources
  if (sources.length === 1 && typeof only === "string") return createReadStream(only, { highWaterMark: 1024 * 1024 })
  return (async function*() {
    for (const s of sources) {
      if (typeof s === "string") yield* createReadStream(s, { highWaterMark: 1024 * 1024 })
      else yield s
    }
  })()
}

/** The gzip stream the archive is written with (level 6: see the bench for why). */
const gzip = () => zlib().createGzip({ level: 6, memLevel: 9, strategy: zlib().constants.Z_DEFAULT_STRATEGY })

/**
 * Compresses `sources` (concatenated) into `dest` atomically: a temp file in the same
 * directory, fsynced, renamed over `dest`, the directory fsynced. Returns the compressed size.
 */
const writeCompressed = async (sources: ReadonlyArray<string | Buffer>, dest: string): Promise<number> => {
  await ensureDir(dirname(dest))
  const temp = tempBeside(dest)
  try {
    await pipeline(streamOf(sources), gzip(), createWriteStream(temp, { flags: "wx", mode: PRIVATE_FILE }))
    const handle = await open(temp, "r+")
    try {
      await handle.sync()
    } finally {
      await handle.close()
    }
    const size = (await stat(temp)).size
    await rename(temp, dest)
    await syncDir(dirname(dest))
    return size
  } catch (cause) {
    await unlink(temp).catch(() => undefined)
    throw cause
  }
}

/** Writes `data` to `dest` atomically (temp file, fsync, rename, directory fsync). */
const writeAtomic = async (dest: string, data: Buffer): Promise<void> => {
  await ensureDir(dirname(dest))
  const temp = tempBeside(dest)
  try {
    const handle = await open(temp, "wx", PRIVATE_FILE)
    try {
      await handle.writeFile(data)
      await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(temp, dest)
  } catch (cause) {
    await unlink(temp).catch(() => undefined)
    throw cause
  }
  await syncDir(dirname(dest))
}

const removeDurably = async (path: string): Promise<void> => {
  try {
    await unlink(path)
  } catch (cause) {
    if (errorCode(cause) === "ENOENT") return
    throw cause
  }
  await syncDir(dirname(path))
}

/** Whether the live file already holds everything the archive holds (it begins with it). */
const liveHoldsArchive = async (live: string, archived: Buffer): Promise<boolean> => {
  const size = await sizeOf(live)
  if (size === undefined || size < archived.length) return false
  const handle = await open(live, "r")
  try {
    const head = Buffer.alloc(archived.length)
    let read = 0
    while (read < head.length) {
      const { bytesRead } = await handle.read(head, read, head.length - read, read)
      if (bytesRead === 0) break
      read += bytesRead
    }
    return read === head.length && head.equals(archived)
  } finally {
    await handle.close().catch(() => undefined)
  }
}

/** What archiving one transcript did (or, in a dry run, would do). */
export interface ArchiveResult {
  readonly bytes: number
  readonly archivedBytes: number
}

/**
 * Moves the live transcript `live` into the archive `dest`. Undefined when there is no live
 * transcript. Both present (a crash between the steps of an earlier archive or restore): the
 * archive's content is kept in front of the live file's unless the live file already holds it.
 */
export const archiveTranscript = async (live: string, dest: string, dryRun: boolean): Promise<ArchiveResult | undefined> => {
  const bytes = await sizeOf(live)
  if (bytes === undefined) return undefined
  const earlier = await readArchive(dest)
  const sources: Array<string | Buffer> = earlier !== undefined && !(await liveHoldsArchive(live, earlier)) ? [earlier, live] : [live]
  const total = sources.reduce<number>((n, s) => n + (typeof s === "string" ? bytes : s.length), 0)
  if (dryRun) {
    const count = counter()
    await pipeline(streamOf(sources), gzip(), count.sink)
    return { bytes: total, archivedBytes: count.bytes() }
  }
  await removeStaleTemps(dest)
  const archivedBytes = await writeCompressed(sources, dest)
  await removeDurably(live)
  return { bytes: total, archivedBytes }
}

/**
 * Brings the archive `source` back as the live transcript `live`; false when there is no
 * archive. A live file already present is kept (see `archiveTranscript` for both present).
 */
export const restoreTranscript = async (source: string, live: string): Promise<boolean> => {
  const archived = await readArchive(source)
  if (archived === undefined) return false
  await removeStaleTemps(live)
  const present = await sizeOf(live)
  if (present === undefined) await writeAtomic(live, archived)
  else if (!(await liveHoldsArchive(live, archived))) await writeAtomic(live, Buffer.concat([archived, await readFile(live)]))
  await removeDurably(source)
  return true
}

/** The children with an archived transcript, by name (temp files of an interrupted archive are not). */
export const listArchive = async (sessionDir: string): Promise<ReadonlyArray<string>> =>
  (await listDir(join(sessionDir, "archive")))
    .filter((e) => e.isFile() && e.name.endsWith(ARCHIVE_SUFFIX) && !e.name.startsWith("."))
    .map((e) => e.name.slice(0, -ARCHIVE_SUFFIX.length))
    .sort()
