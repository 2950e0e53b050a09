import * as Path from "node:path"
import { Clock, Effect } from "effect"
import type { AgentDefinition } from "@dsh/agent"
import { type AgentFileResult, parseAgentFileBytes, tooLarge } from "./AgentFile.ts"
import { MAX_AGENT_FILE_BYTES } from "./AgentFileParts.ts"
import * as Fs from "./internal/Fs.ts"
import { isCodexRolePath, loadCodexRole } from "./CodexAgentRole.ts"
import { expandKimiSubagents, isKimiSpecPath, loadKimiAgentSpec, type KimiSpecResult } from "./KimiAgentSpec.ts"

/**
 * Finding agent files on disk. Directories are walked depth-first in code-point order of entry
 * names, so the same tree always yields the same order (and the same winner among same-scope
 * duplicates). Nothing here fails: problems become skip reasons or warnings.
 */

/** Deeper trees are not agent directories; the limits keep a mistaken `extra_agent_dirs` cheap. */
const MAX_DEPTH = 12
const MAX_FILES_PER_DIR_TREE = 5_000
const SKIPPED_DIRS = new Set([".git", "node_modules"])
/** A directory's files are read within this time; the rest are skipped with the reason. */
const SCAN_BUDGET_MS = 10_000

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
  /** One per file under the directory: every file is loaded or skipped with the reason. */
  readonly results: ReadonlyArray<AgentFileResult>
  /** Agents loaded from outside the directory: subagents a Kimi spec in it declares by path. */
  readonly extra: ReadonlyArray<AgentFileResult>
  readonly warnings: ReadonlyArray<string>
}

/** Why a file that is neither kind of agent file is not one. */
export const NOT_AN_AGENT_FILE = "not an agent file (dsh reads Markdown agent files, *.md, Kimi agent specs, *.yaml, and Codex agent roles, *.toml)"

/** Reads one agent file: a size check before reading, then at most the limit is read. */
export const loadAgentFile = (path: string, scope: AgentDefinition.AgentScope): Effect.Effect<AgentFileResult, Fs.FsFailure> =>
  Effect.gen(function*() {
    const info = yield* Fs.stat(path)
    if (!info.isFile()) return { _tag: "Invalid", path, reason: "not a regular file" } as const
    if (info.size > MAX_AGENT_FILE_BYTES) return { _tag: "Invalid", path, reason: tooLarge(info.size) } as const
    const read = yield* Fs.readBounded(path, MAX_AGENT_FILE_BYTES)
    if (read.truncated) return { _tag: "Invalid", path, reason: tooLarge(MAX_AGENT_FILE_BYTES + 1) } as const
    return parseAgentFileBytes(read.bytes, path, { scope })
  })

/**
 * Every file under `dir`, recursively: `.md` files parsed as agent files, `.yaml`/`.yml` files
 * as Kimi agent specs (with the subagents they declare), `.toml` files as Codex agent roles,
 * anything else skipped as not an agent file. A missing directory yields nothing; a `dir` that
 * is a file is read as that one file.
 */
export const scanAgentDir = (dir: string, scope: AgentDefinition.AgentScope): Effect.Effect<DirScan> =>
  Effect.gen(function*() {
    const warnings: Array<string> = []
    const files: Array<string> = []
    const odd: Array<AgentFileResult> = []
    const visited = new Set<string>()
    const walk = (current: string, depth: number): Effect.Effect<void> =>
      Effect.gen(function*() {
        const real = yield* Fs.realpath(current).pipe(Effect.orElseSucceed(() => current))
        if (visited.has(real)) return
        visited.add(real)
        const listed = yield* Fs.readdir(current).pipe(Effect.result)
        // A plugin manifest may name one agent file instead of a directory (Claude Code's `agents`).
        if (listed._tag === "Failure" && depth === 0 && listed.failure.code === "ENOTDIR") {
          files.push(current)
          return
        }
        if (listed._tag === "Failure") {
          if (!(depth === 0 && listed.failure.code === "ENOENT")) {
            warnings.push(`${current}: cannot read agent directory: ${listed.failure.message}`)
          }
          return
        }
        const entries = [...listed.success].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        for (const entry of entries) {
          if (files.length + odd.length >= MAX_FILES_PER_DIR_TREE) {
            warnings.push(`${dir}: more than ${MAX_FILES_PER_DIR_TREE} files; the rest are ignored`)
            return
          }
          const path = Path.join(current, entry.name)
          let isDir = entry.isDirectory()
          let isFile = entry.isFile()
          let kind = entryKind(entry)
          if (entry.isSymbolicLink()) {
            const target = yield* Fs.stat(path).pipe(Effect.option)
            isDir = target._tag === "Some" && target.value.isDirectory()
            isFile = target._tag === "Some" && target.value.isFile()
            kind = target._tag === "Some" ? entryKind(target.value) : "a dangling symbolic link"
          }
          if (isDir) {
            if (SKIPPED_DIRS.has(entry.name)) continue
            if (depth + 1 > MAX_DEPTH) warnings.push(`${path}: nested deeper than ${MAX_DEPTH} levels; not scanned`)
            else yield* walk(path, depth + 1)
          } else if (!isFile) {
            // Every entry is accounted for: a FIFO, device or dangling link is skipped with the reason.
            odd.push({ _tag: "Invalid", path, reason: `not a regular file (${kind})` })
          } else if (/\.md$/i.test(entry.name) || isKimiSpecPath(entry.name) || isCodexRolePath(entry.name)) {
            files.push(path)
          } else {
            odd.push({ _tag: "Invalid", path, reason: NOT_AN_AGENT_FILE })
          }
        }
      })
    yield* walk(dir, 0)
    const started = yield* Clock.currentTimeMillis
    const loaded = yield* Effect.forEach(files, (path) =>
      Effect.gen(function*() {
        if ((yield* Clock.currentTimeMillis) - started > SCAN_BUDGET_MS) {
          return { result: { _tag: "Invalid", path, reason: `not read: the scan of ${dir} ran past its ${SCAN_BUDGET_MS / 1000}-second budget` } as const, subagents: [] }
        }
        if (isKimiSpecPath(path)) return yield* loadKimiAgentSpec(path, scope)
        if (isCodexRolePath(path)) return { result: yield* loadCodexRole(path, scope), subagents: [] } satisfies KimiSpecResult
        return { result: yield* loadAgentFile(path, scope).pipe(
          Effect.catch((failure) => Effect.succeed<AgentFileResult>({ _tag: "Invalid", path, reason: `cannot read: ${failure.message}` }))
        ), subagents: [] } satisfies KimiSpecResult
      }), { concurrency: 8 })
    const expanded = yield* expandKimiSubagents(loaded, scope)
    warnings.push(...expanded.warnings)
    // A Markdown file a spec reads as its prompt is that spec's, not an agent file of its own.
    const results = expanded.results.map((r): AgentFileResult => {
      if (r._tag !== "Invalid") return r
      const owner = expanded.prompts.get(r.path)
      return owner === undefined ? r : { ...r, reason: `the system prompt of ${owner} (system_prompt_path), not an agent file of its own` }
    })
    return { results: [...results, ...odd], extra: expanded.extra, warnings }
  })

/** What a directory entry is, for a skip reason. */
const entryKind = (e: { isFIFO(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isSocket(): boolean }): string =>
  e.isFIFO() ? "a FIFO" : e.isCharacterDevice() || e.isBlockDevice() ? "a device file" : e.isSocket() ? "a socket" : "not a file"
