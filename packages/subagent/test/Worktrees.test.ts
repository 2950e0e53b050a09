import { assert, describe, it } from "@effect/vitest"
import { ScriptedModel } from "@dsh/llm-scripted"
import { LocalProcessLauncher } from "@dsh/subprocess"
import { Effect, Exit, Layer, Scope } from "effect"
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Subagents, SubagentTree, type Vocabulary, Worktrees } from "../src/index.ts"
import { Fixtures } from "../src/testing.ts"

// Real git in temporary repositories, through the local process launcher.
const git = (cwd: string, ...args: Array<string>) =>
  execFileSync("git", args, { cwd, encoding: "utf8", env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" } }).trim()
const repo = () => {
  const dir = mkdtempSync(join(tmpdir(), "dsh-wt-lib-"))
  git(dir, "init", "-q", "-b", "main")
  mkdirSync(join(dir, "src"))
  writeFileSync(join(dir, "src", "a.txt"), "a\n")
  git(dir, "add", ".")
  git(dir, "commit", "-q", "-m", "init")
  return dir
}
const branches = (dir: string) => git(dir, "branch", "--format=%(refname:short)").split("\n").sort()
const layer = Layer.provide(Worktrees.layer, LocalProcessLauncher.layer())

/** A child that writes `<prompt>` into `out.txt` of its working directory, unless told "nothing". */
const writer: Vocabulary.SubagentProvider = {
  specificationVersion: "v1",
  name: "fixture",
  description: "writes a file in its cwd",
  start: (context: Vocabulary.StartContext) =>
    Effect.sync((): Vocabulary.ChildOutcome => {
      if (context.request.prompt !== "nothing") writeFileSync(join(context.parent.cwd, "out.txt"), context.request.prompt)
      return { status: "completed", output: `in ${context.parent.cwd}`, usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } }
    })
}
const noContext = () => Effect.succeed({ tools: [], systemPrompt: "" })

describe("Worktrees", () => {
  it.effect("acquire adds dsh/<handle> in the git directory with the parent's subdirectory as cwd; the scope's close removes it when unchanged", () =>
    Effect.gen(function*() {
      const dir = repo()
      const worktrees = yield* Worktrees.Worktrees
      const scope = yield* Scope.make()
      const lease = yield* worktrees.acquire({ cwd: join(dir, "src"), session: "s1", handle: "coder-1" }).pipe(Scope.provide(scope))
      assert.strictEqual(lease.branch, "dsh/coder-1")
      assert.strictEqual(lease.path, join(dir, ".git", "dsh-worktrees", "s1", "coder-1"))
      assert.strictEqual(lease.cwd, join(lease.path, "src"))
      assert.strictEqual(readFileSync(join(lease.cwd, "a.txt"), "utf8"), "a\n")
      assert.deepStrictEqual(branches(dir), ["dsh/coder-1", "main"])
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(existsSync(lease.path))
      assert.deepStrictEqual(branches(dir), ["main"])
    }).pipe(Effect.provide(layer)))

  it.effect("a worktree with a commit beyond its base (and a clean status) is kept; remove deletes it and its branch", () =>
    Effect.gen(function*() {
      const dir = repo()
      const worktrees = yield* Worktrees.Worktrees
      const lease = yield* Effect.scoped(Effect.gen(function*() {
        const lease = yield* worktrees.acquire({ cwd: dir, session: "s1", handle: "coder-1" })
        writeFileSync(join(lease.cwd, "b.txt"), "b\n")
        git(lease.cwd, "add", "b.txt")
        git(lease.cwd, "commit", "-q", "-m", "b")
        assert.deepStrictEqual(yield* lease.settle, { kept: true })
        return lease
      }))
      assert.isTrue(existsSync(join(lease.path, "b.txt")))
      assert.deepStrictEqual(branches(dir), ["dsh/coder-1", "main"])
      yield* worktrees.remove(lease)
      assert.isFalse(existsSync(lease.path))
      assert.deepStrictEqual(branches(dir), ["main"])
    }).pipe(Effect.provide(layer)))

  it.effect("a repository without a commit, and a directory outside any, are NotARepository", () =>
    Effect.gen(function*() {
      const worktrees = yield* Worktrees.Worktrees
      const empty = mkdtempSync(join(tmpdir(), "dsh-wt-lib-"))
      const outside = yield* Effect.flip(Effect.scoped(worktrees.acquire({ cwd: empty, session: "s", handle: "c" })))
      assert.strictEqual(outside.reason, "NotARepository")
      git(empty, "init", "-q")
      const fresh = yield* Effect.flip(Effect.scoped(worktrees.acquire({ cwd: empty, session: "s", handle: "c" })))
      assert.strictEqual(fresh.reason, "NotARepository")
      assert.include(fresh.message, "no commit yet")
    }).pipe(Effect.provide(layer)))
})

describe("Subagents with isolation", () => {
  const model = ScriptedModel.make({ rules: [] })

  it.effect("the call's isolation or the type's runs the child in its worktree; the kept one is in the result and the descriptor", () =>
    Effect.gen(function*() {
      const dir = repo()
      const tree = yield* SubagentTree.make({ childContext: noContext, cwd: dir })
      const subagents = yield* Subagents.make({ tree, providers: [writer], types: [Fixtures.testType("coder"), Fixtures.testType("isolated", "fixture", { isolation: "worktree" })] })
      const parent = Fixtures.testParent(model, { cwd: dir })
      const byCall = yield* subagents.spawn({ prompt: "one", description: "t", agent: "coder", isolation: "worktree" }, parent)
      const byType = yield* subagents.spawn({ prompt: "two", description: "t", agent: "isolated" }, parent)
      const unchanged = yield* subagents.spawn({ prompt: "nothing", description: "t", agent: "isolated" }, parent)
      const shared = yield* subagents.spawn({ prompt: "three", description: "t", agent: "coder" }, parent)
      const path = (handle: string) => join(dir, ".git", "dsh-worktrees", "memory", handle)
      assert.include(byCall.notes, `kept in worktree ${path("coder-1")} on branch dsh/coder-1`)
      assert.strictEqual(readFileSync(join(path("coder-1"), "out.txt"), "utf8"), "one")
      assert.strictEqual(readFileSync(join(path("isolated-1"), "out.txt"), "utf8"), "two")
      assert.strictEqual(tree.descriptors.get(byType.handle)?.worktree?.branch, "dsh/isolated-1")
      assert.isUndefined(unchanged.notes)
      assert.isUndefined(tree.descriptors.get(unchanged.handle)?.worktree)
      assert.isFalse(existsSync(path("isolated-2")))
      // Without isolation the child shares the parent's directory, as before.
      assert.strictEqual(shared.output, `in ${dir}`)
      assert.strictEqual(readFileSync(join(dir, "out.txt"), "utf8"), "three")
      assert.deepStrictEqual(branches(dir), ["dsh/coder-1", "dsh/isolated-1", "main"])
    }).pipe(Effect.scoped, Effect.provide(layer)))

  it.effect("a tree without Worktrees refuses isolation with a typed error, and records no child", () =>
    Effect.gen(function*() {
      const tree = yield* SubagentTree.make({ childContext: noContext })
      const subagents = yield* Subagents.make({ tree, providers: [writer], types: [Fixtures.testType("coder")] })
      const error = yield* Effect.flip(subagents.spawn({ prompt: "one", description: "t", agent: "coder", isolation: "worktree" }, Fixtures.testParent(model, { cwd: tmpdir() })))
      assert.strictEqual(error.reason, "Isolation")
      assert.deepStrictEqual(tree.descriptors.all(), [])
    }).pipe(Effect.scoped))
})
