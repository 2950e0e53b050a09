import * as Path from "node:path"
import { Effect } from "effect"
import type { AgentScope } from "../AgentDefinition.ts"
import { type AgentFileResult, parseAgentFileBytes, tooLarge } from "./AgentFile.ts"
import { MAX_AGENT_FILE_BYTES } from "./AgentName.ts"
import * as Fs from "./internal/Fs.ts"

/**
 * Finding agent files on disk. Directories are walked depth-first in code-point order of entry
 * names, so the same tree always yields the same order (and the same winner among same-scope
 * duplicates). Nothing here fails: problems become skip reasons or warnings.
 */

/** Deeper trees are not agent directories; the limits keep a mistaken `extra_agent_dirs` cheap. */
const MAX_DEPTH = 12
const MAX_FILES_PER_DIR_TREE = 5_000
const SKIPPED_DIRS = new Set([".git", "node_modules"])

/**
 * The project root: the nearest ancestor of `cwd` (itself included) that contains `.git` (a
 * directory, or a file in worktrees and submodules); `cwd` itself when there is none.
 */
export const findProjectRoot = (cwd: string): Effect.Effect<string> =>
  Effect.gen(function*() {
    const start = Path.resolve(cwd)
    let dir = start
    while (true) {
      if (yield* Fs.exists(Path.join(dir, ".git"))) return dir
      const parent = Path.dirname(dir)
      if (parent === dir) return start
      dir = parent
    }
  })

export interface DirScan {
  readonly results: ReadonlyArray<AgentFileResult>
  readonly warnings: ReadonlyArray<string>
}

/** Reads one agent file: a size check before reading, then at most the limit is read. */
export const loadAgentFile = (path: string, scope: AgentScope): Effect.Effect<AgentFileResult, Fs.FsFailure> =>
  Effect.gen(function*() {
    const info = yield* Fs.stat(path)
    if (!info.isFile()) return { _tag: "Invalid", path, reason: "not a regular file" } as const
    if (info.size > MAX_AGENT_FILE_BYTES) return { _tag: "Invalid", path, reason: tooLarge(info.size) } as const
    const read = yield* Fs.readBounded(path, MAX_AGENT_FILE_BYTES)
    if (read.truncated) return { _tag: "Invalid", path, reason: tooLarge(MAX_AGENT_FILE_BYTES + 1) } as const
    return parseAgentFileBytes(read.bytes, path, { scope })
  })

/** Every `.md` file under `dir`, recursively, parsed. A missing directory yields nothing. */
export const scanAgentDir = (dir: string, scope: AgentScope): Effect.Effect<DirScan> =>
  Effect.gen(function*() {
    const warnings: Array<string> = []
    const files: Array<string> = []
    const visited = new Set<string>()
    const walk = (current: string, depth: number): Effect.Effect<void> =>
      Effect.gen(function*() {
        const real = yield* Fs.realpath(current).pipe(Effect.orElseSucceed(() => current))
        if (visited.has(real)) return
        visited.add(real)
        const listed = yield* Fs.readdir(current).pipe(Effect.result)
        if (listed._tag === "Failure") {
          if (!(depth === 0 && listed.failure.code === "ENOENT")) {
            warnings.push(`${current}: cannot read agent directory: ${listed.failure.message}`)
          }
          return
        }
        const entries = [...listed.success].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        for (const entry of entries) {
          if (files.length >= MAX_FILES_PER_DIR_TREE) {
            warnings.push(`${dir}: more than ${MAX_FILES_PER_DIR_TREE} agent files; the rest are ignored`)
            return
          }
          const path = Path.join(current, entry.name)
          let isDir = entry.isDirectory()
          let isFile = entry.isFile()
          if (entry.isSymbolicLink()) {
            const target = yield* Fs.stat(path).pipe(Effect.option)
            isDir = target._tag === "Some" && target.value.isDirectory()
            isFile = target._tag === "Some" && target.value.isFile()
          }
          if (isDir && !SKIPPED_DIRS.has(entry.name)) {
            if (depth + 1 > MAX_DEPTH) warnings.push(`${path}: nested deeper than ${MAX_DEPTH} levels; not scanned`)
            else yield* walk(path, depth + 1)
          } else if (isFile && /\.md$/i.test(entry.name)) {
            files.push(path)
          }
        }
      })
    yield* walk(dir, 0)
    const results = yield* Effect.forEach(files, (path) =>
      loadAgentFile(path, scope).pipe(
        Effect.catch((failure) =>
          Effect.succeed<AgentFileResult>({ _tag: "Invalid", path, reason: `cannot read: ${failure.message}` })
        )
      ), { concurrency: 8 })
    return { results, warnings }
  })
