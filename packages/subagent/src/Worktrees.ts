import { ProcessLauncher } from "@dsh/subprocess"
import { Context, Effect, Layer, Schema, type Scope, Semaphore } from "effect"
import { rm } from "node:fs/promises"
import { isAbsolute, join, relative, resolve } from "node:path"

/**
 * Git worktrees for children that run with `isolation: "worktree"`: each gets a new worktree of
 * its working directory's repository on branch `dsh/<handle>`, so parallel writers never touch
 * one another's files. A worktree lives in the repository's git directory
 * (`<git-common-dir>/dsh-worktrees/<session>/<handle>`): outside the working tree, so the
 * parent's Glob and Grep never see it, and beside the repository it belongs to.
 */
export class WorktreeError extends Schema.TaggedError<WorktreeError>()("WorktreeError", {
  reason: Schema.Literals(["NotARepository", "AddFailed", "RemoveFailed"]),
  message: Schema.String
}) {}

/** A child's worktree, as recorded in its descriptor once kept. */
export const WorktreeRecord = Schema.Struct({
  /** The worktree's directory. */
  path: Schema.String,
  branch: Schema.String,
  /** The main working tree of the repository it belongs to (where `git worktree remove` runs). */
  repo: Schema.String,
  /** The commit it was made from. */
  base: Schema.String
})
export type WorktreeRecord = typeof WorktreeRecord.Type

/** An acquired worktree: its record, the child's working directory in it, and how it settles. */
export interface WorktreeLease extends WorktreeRecord {
  /** The child's cwd: the worktree, plus the parent's directory relative to the repository's top. */
  readonly cwd: string
  /**
   * Removes the worktree and its branch when the child changed nothing (clean status, no
   * commits beyond the base); else keeps both. Runs once: later calls return the first answer.
   */
  readonly settle: Effect.Effect<{ readonly kept: boolean; readonly notes?: string | undefined }>
}

export interface AcquireWorktree {
  /** The parent's working directory: its repository is the one the worktree is made of. */
  readonly cwd: string
  readonly session: string
  readonly handle: string
}

export interface WorktreesShape {
  /** Adds the worktree; the scope's close settles it (`settle`), whatever settled it first. */
  readonly acquire: (request: AcquireWorktree) => Effect.Effect<WorktreeLease, WorktreeError, Scope.Scope>
  /** Removes a kept worktree and its branch, changes or not (`dsh sessions prune`). */
  readonly remove: (record: WorktreeRecord) => Effect.Effect<void, WorktreeError>
}

export class Worktrees extends Context.Service<Worktrees, WorktreesShape>()("@dsh/subagent/Worktrees") {}

/** What git said went wrong: its `fatal:`/`error:` line, else its last line. */
const lastLine = (text: string) => {
  const lines = text.trim().split("\n").filter((l) => l.trim() !== "")
  return lines.find((l) => /^(fatal|error):/.test(l)) ?? lines.pop() ?? ""
}

/** Worktrees over `launcher` (git runs as a process like any other the harness starts). */
export const make = (launcher: ProcessLauncher.ProcessLauncherShape): WorktreesShape => {
  const git = (cwd: string, args: ReadonlyArray<string>) =>
    launcher.run({ command: "git", args, cwd, stdin: "ignore", dieWithParent: false }).pipe(
      Effect.map((r) => ({ ok: r.exitCode === 0 && !r.timedOut, out: r.stdout.trim(), err: lastLine(r.stderr) || lastLine(r.stdout) })),
      Effect.catch((e) => Effect.succeed({ ok: false, out: "", err: e.message }))
    )
  // One `git worktree add` at a time: parallel children adding worktrees to one repository race
  // for git's lock files, and the loser's add failed.
  const adding = Semaphore.makeUnsafe(1)
  const fail = (reason: WorktreeError["reason"], message: string) => Effect.fail(new WorktreeError({ reason, message }))

  const branchExists = (repo: string, branch: string) => Effect.map(git(repo, ["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`]), (r) => r.ok)

  /** Best effort: no directory, no registration, no branch we made. */
  const undo = (repo: string, path: string, branch: string) =>
    Effect.gen(function*() {
      yield* git(repo, ["worktree", "remove", "--force", path])
      yield* Effect.promise(() => rm(path, { recursive: true, force: true }))
      yield* git(repo, ["worktree", "prune"])
      if (yield* branchExists(repo, branch)) yield* git(repo, ["branch", "-D", branch])
    })

  const remove: WorktreesShape["remove"] = (record) =>
    Effect.gen(function*() {
      // A worktree already gone (removed by hand) is no error: the directory and the registration go either way.
      yield* git(record.repo, ["worktree", "remove", "--force", record.path])
      yield* Effect.promise(() => rm(record.path, { recursive: true, force: true }))
      yield* git(record.repo, ["worktree", "prune"])
      if (!(yield* branchExists(record.repo, record.branch))) return
      const branch = yield* git(record.repo, ["branch", "-D", record.branch])
      if (!branch.ok) return yield* fail("RemoveFailed", `could not delete branch ${record.branch}: ${branch.err}`)
    })

  const acquire: WorktreesShape["acquire"] = (request) =>
    Effect.gen(function*() {
      const top = yield* git(request.cwd, ["rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir"])
      if (!top.ok) return yield* fail("NotARepository", `${request.cwd} is not in a git repository, so the child cannot get a worktree (${top.err})`)
      const [repo = request.cwd, common = join(request.cwd, ".git")] = top.out.split("\n")
      const head = yield* git(repo, ["rev-parse", "--verify", "HEAD"])
      if (!head.ok) return yield* fail("NotARepository", `the repository at ${repo} has no commit yet, so a worktree cannot be made of it`)
      const base = head.out
      const branch = `dsh/${request.handle}`
      const path = join(common, "dsh-worktrees", request.session, request.handle)
      if (yield* branchExists(repo, branch)) {
        return yield* fail("AddFailed", `branch ${branch} already exists in ${repo}: delete it (git branch -D ${branch}) or prune the session that kept it`)
      }
      const added = yield* adding.withPermit(git(repo, ["worktree", "add", "-b", branch, path, "HEAD"]))
      if (!added.ok) {
        yield* undo(repo, path, branch)
        return yield* fail("AddFailed", `could not add a worktree for ${request.handle} at ${path}: ${added.err}`)
      }
      const record: WorktreeRecord = { path, branch, repo, base }
      const within = relative(repo, resolve(request.cwd))
      const cwd = within === "" || within.startsWith("..") || isAbsolute(within) ? path : join(path, within)

      const decide = Effect.gen(function*() {
        const status = yield* git(path, ["status", "--porcelain"])
        const ahead = yield* git(path, ["rev-list", "--count", `${base}..HEAD`])
        if (!status.ok || !ahead.ok) return { kept: true, notes: `could not tell whether ${path} has changes (${status.err || ahead.err}); kept` }
        if (status.out !== "" || ahead.out !== "0") return { kept: true }
        const gone = yield* remove(record).pipe(Effect.result)
        return gone._tag === "Success" ? { kept: false } : { kept: true, notes: `could not remove the unchanged worktree ${path}: ${gone.failure.message}` }
      })
      // Decided once: by the run that reports it, or by the scope's end when no run asked.
      const settle = yield* Effect.cached(decide)
      yield* Effect.addFinalizer(() => settle)
      return { ...record, cwd, settle } satisfies WorktreeLease
    })

  return { acquire, remove }
}

/** `Worktrees` over the context's `ProcessLauncher`. */
export const layer: Layer.Layer<Worktrees, never, ProcessLauncher.ProcessLauncher> = Layer.effect(Worktrees, Effect.gen(function*() {
  return make(yield* ProcessLauncher.ProcessLauncher)
}))
