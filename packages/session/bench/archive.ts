/**
 * Archive benchmark: a child's 10 MB transcript (the persistence bench's turn mix) moved into
 * the session's archive by `archiveChild` (gzip level 6, fsync, rename, unlink), against a
 * baseline measured in the same run: the same move without compression (copy, fsync, rename,
 * unlink). Alternatives that were weighed are timed on the same bytes (gzip 1, brotli 4 and 6,
 * compress to a file plus fsync), and so are reading the archived transcript back and the
 * restore on the first append. Medians of `runs`.
 *
 *   node --conditions=@dsh/source packages/session/bench/archive.ts [megabytes] [runs]
 */
import { copyFile, mkdtemp, open, readFile, rename, rm, stat, unlink } from "node:fs/promises"
import { createReadStream, createWriteStream } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pipeline } from "node:stream/promises"
import { constants, createBrotliCompress, createGzip } from "node:zlib"
import type { Events } from "@dsh/core"
import { Effect } from "effect"
import { FileSessionStore } from "../src/index.ts"
import { Samples } from "../src/testing.ts"

const megabytes = Number(process.argv[2] ?? 10)
const runs = Number(process.argv[3] ?? 5)

const median = (xs: ReadonlyArray<number>): number => {
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid] ?? 0 : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2
}
const timed = async (f: () => Promise<unknown>): Promise<number> => {
  const start = performance.now()
  await f()
  return performance.now() - start
}
const fsyncFile = async (path: string) => {
  const h = await open(path, "r+")
  await h.sync()
  await h.close()
}

/** Turn events whose text varies like real transcripts do (file contents, paths, answers). */
const turn = (n: number): ReadonlyArray<Events.AgentEvent> => [
  ...Samples.sampleTurnEvents(n),
  { type: "tool-result", id: `call-${n}-b`, name: "Read", output: `export const v${n} = ${n * 7919 % 10007}\n`.repeat(8 + (n % 13)), isError: false, durationMs: n % 17 },
  { type: "message", message: { role: "assistant", content: `Turn ${n}: module-${n % 97}.ts exports v${n}; it is ${n * 31 % 1000} lines long and imports ${n % 11} modules.` } }
]

const program = Effect.scoped(Effect.gen(function*() {
  const home = yield* Effect.promise(() => mkdtemp(join(tmpdir(), "dsh-bench-archive-")))
  const store = yield* FileSessionStore.make({ home })
  const session = yield* store.create({ agent: "coder", cwd: "/work", model: "scripted", id: "bench" })
  const child = yield* session.child("big-1")
  let n = 0
  while ((yield* Effect.promise(() => stat(child.transcript.location).then((s) => s.size, () => 0))) < megabytes * 1024 * 1024) {
    for (let i = 0; i < 200; i++) for (const e of turn(++n)) yield* child.transcript.append(e)
  }
  yield* child.transcript.sync
  const live = child.transcript.location
  const master = join(home, "master.jsonl")
  yield* Effect.promise(() => copyFile(live, master))
  const bytes = (yield* Effect.promise(() => stat(master))).size
  const records = (yield* child.transcript.read).records.length
  const reset = () => copyFile(master, live)

  const baseline: Array<number> = []
  const archive: Array<number> = []
  const readArchived: Array<number> = []
  const readLive: Array<number> = []
  const restore: Array<number> = []
  let archivedBytes = 0
  const alternatives: Record<string, { ms: Array<number>; bytes: number }> = {}
  const compressors: Record<string, () => NodeJS.ReadWriteStream> = {
    "gzip-1": () => createGzip({ level: 1 }),
    "gzip-6": () => createGzip({ level: 6 }),
    "brotli-4": () => createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: bytes } }),
    "brotli-6": () => createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 6, [constants.BROTLI_PARAM_SIZE_HINT]: bytes } })
  }
  for (let r = 0; r < runs; r++) {
    // Baseline: the move without compression, as durable as the archive.
    yield* Effect.promise(reset)
    baseline.push(yield* Effect.promise(() => timed(async () => {
      const temp = join(home, "copy.tmp")
      await copyFile(live, temp)
      await fsyncFile(temp)
      await rename(temp, join(home, "moved.jsonl"))
      await unlink(live)
    })))
    yield* Effect.promise(reset)
    readLive.push(yield* Effect.promise(() => timed(() => Effect.runPromise(child.transcript.read))))
    const start = performance.now()
    const done = yield* session.archiveChild("big-1")
    archive.push(performance.now() - start)
    archivedBytes = done?.archivedBytes ?? 0
    readArchived.push(yield* Effect.promise(() => timed(() => Effect.runPromise(child.transcript.read))))
    const restoreStart = performance.now()
    yield* child.transcript.append({ type: "notice", level: "info", message: "continued" })
    restore.push(performance.now() - restoreStart)
    yield* Effect.promise(() => unlink(live))
    for (const [name, make] of Object.entries(compressors)) {
      const out = join(home, `alt-${name}`)
      const ms = yield* Effect.promise(() => timed(async () => {
        await pipeline(createReadStream(master), make(), createWriteStream(out))
        await fsyncFile(out)
      }))
      const size = (yield* Effect.promise(() => stat(out))).size
      alternatives[name] = { ms: [...(alternatives[name]?.ms ?? []), ms], bytes: size }
    }
  }
  const check = (yield* Effect.promise(() => readFile(master, "utf8"))).split("\n").length - 1
  yield* Effect.promise(() => rm(home, { recursive: true, force: true }))
  if (check !== records) return yield* Effect.die(`read ${records} records, the file holds ${check}`)

  const base = median(baseline)
  const med = median(archive)
  const mb = (bytes / 1024 / 1024).toFixed(1)
  const fmt = (ms: number) => `${ms.toFixed(0)} ms`
  console.log(`archive: ${mb} MB transcript (${records} records) → ${(archivedBytes / 1024 / 1024).toFixed(2)} MB (${(bytes / archivedBytes).toFixed(1)}x smaller); median ${fmt(med)} vs ${fmt(base)} for an uncompressed durable move (${(med / base).toFixed(1)}x), ${(bytes / 1024 / 1024 / (med / 1000)).toFixed(0)} MB/s`)
  console.log(`archive: reading it back ${fmt(median(readArchived))} from the archive vs ${fmt(median(readLive))} live; restore on the first append ${fmt(median(restore))}`)
  console.log(`archive: alternatives on the same bytes (compress to a file + fsync): ${Object.entries(alternatives).map(([k, v]) => `${k} ${fmt(median(v.ms))} → ${(bytes / v.bytes).toFixed(1)}x`).join(", ")}`)
  console.log(JSON.stringify({
    bench: "archive",
    bytes,
    records,
    runs,
    archivedBytes,
    compressionRatio: Number((bytes / archivedBytes).toFixed(2)),
    medianArchiveMs: Math.round(med),
    medianBaselineMoveMs: Math.round(base),
    ratioToBaseline: Number((med / base).toFixed(2)),
    medianReadArchivedMs: Math.round(median(readArchived)),
    medianReadLiveMs: Math.round(median(readLive)),
    medianRestoreMs: Math.round(median(restore)),
    alternatives: Object.fromEntries(Object.entries(alternatives).map(([k, v]) => [k, { medianMs: Math.round(median(v.ms)), ratio: Number((bytes / v.bytes).toFixed(2)) }]))
  }))
}))

await Effect.runPromise(program)
