import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { makeHome, runDsh, tempDir } from "./support.ts"

// Real git in temporary repositories; the remote model is a fake OpenAI server.
interface Body {
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: string | null }>
}
const body = (r: FakeOpenAIServer.FakeRequest) => r.body as Body
const firstUser = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.find((m) => m.role === "user")?.content ?? ""
const toolResults = (r: FakeOpenAIServer.FakeRequest) => body(r).messages.filter((m) => m.role === "tool").map((m) => m.content ?? "")

const git = (cwd: string, ...args: Array<string>) =>
  execFileSync("git", args, { cwd, encoding: "utf8", env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" } }).trim()

const repo = (): string => {
  const dir = tempDir("dsh-wt-")
  git(dir, "init", "-q", "-b", "main")
  writeFileSync(join(dir, "shared.txt"), "original\n")
  git(dir, "add", "shared.txt")
  git(dir, "commit", "-q", "-m", "init")
  return dir
}

interface Out {
  readonly sessionId: string
  readonly result: string
}

/**
 * A main agent that delegates `tasks` in one response (each a coder with `isolation: "worktree"`);
 * a child told "write X" writes X into shared.txt, one told "look" changes nothing.
 */
const delegating = async (cwd: string, home: string, tasks: ReadonlyArray<string>, agent = "coder", swarm = false, isolation = true) => {
  const server = await FakeOpenAIServer.startFakeOpenAIServer({
    respond: (r) => {
      const first = firstUser(r)
      const results = toolResults(r)
      if (first.startsWith("write ")) {
        return results.length === 0 ? { toolCalls: [{ name: "Write", arguments: { path: "shared.txt", content: `${first.slice(6)}\n` } }] } : { text: `wrote ${first.slice(6)}` }
      }
      if (first.startsWith("escape ")) {
        return results.length === 0 ? { toolCalls: [{ name: "Write", arguments: { path: first.slice(7), content: "escaped\n" } }] } : { text: `the write said: ${results[0]}` }
      }
      if (first === "look") return { text: "nothing to change" }
      return results.length === 0
        ? swarm
          ? { toolCalls: [{ name: "swarm", arguments: { agent, prompt: "{{item}}", items: tasks, isolation: "worktree" } }] }
          : { toolCalls: tasks.map((t) => ({ name: "subagent", arguments: { description: t, prompt: t, agent, ...(isolation ? { isolation: "worktree" } : {}) } })) }
        : { text: results.join("\n---\n") }
    }
  })
  try {
    const env = { DSH_HOME: home, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test", DSH_RESIDENT: "0" }
    const r = await runDsh(["run", "--model", "openai:any", "--output-format", "json", "--allow", "subagent", "--allow", "swarm", "--allow", "Write", "go"], { cwd, env })
    expect(r.code, r.stderr).toBe(0)
    return JSON.parse(r.stdout) as Out
  } finally {
    await server.close()
  }
}

const branches = (dir: string) => git(dir, "branch", "--format=%(refname:short)").split("\n").filter((b) => b !== "").sort()
const worktreeDirs = (dir: string) => git(dir, "worktree", "list", "--porcelain").split("\n").filter((l) => l.startsWith("worktree ")).map((l) => l.slice(9))

describe("isolation: worktree", () => {
  it("runs parallel coders each in its own worktree: both writes survive on their branches, the main tree is untouched", async () => {
    const cwd = repo()
    const home = makeHome()
    const out = await delegating(cwd, home, ["write alpha", "write beta"])
    expect(readFileSync(join(cwd, "shared.txt"), "utf8")).toBe("original\n")
    expect(git(cwd, "status", "--porcelain")).toBe("")
    expect(branches(cwd)).toEqual(["dsh/coder-1", "dsh/coder-2", "main"])
    const trees = worktreeDirs(cwd).filter((p) => p !== cwd)
    expect(trees).toHaveLength(2)
    const contents = trees.map((p) => readFileSync(join(p, "shared.txt"), "utf8")).sort()
    expect(contents).toEqual(["alpha\n", "beta\n"])
    for (const p of trees) {
      // Outside the working tree (Glob and Grep of the parent never see it), under the session.
      expect(p.startsWith(join(git(cwd, "rev-parse", "--absolute-git-dir"), "dsh-worktrees", out.sessionId))).toBe(true)
    }
    // The parent model was told where each child's changes are.
    expect(out.result).toMatch(/kept in worktree .*dsh-worktrees.*coder-1 on branch dsh\/coder-1/)
    expect(out.result).toMatch(/kept in worktree .*coder-2 on branch dsh\/coder-2/)
    // `subagents info` names the kept worktree.
    const info = await runDsh(["subagents", "info", "coder-1", "--session", out.sessionId, "--json"], { env: { DSH_HOME: home } })
    expect(info.code, info.stderr).toBe(0)
    const record = (JSON.parse(info.stdout) as { worktree?: { path: string; branch: string } }).worktree
    expect(record?.branch).toBe("dsh/coder-1")
    expect(readFileSync(join(record!.path, "shared.txt"), "utf8")).toMatch(/^(alpha|beta)\n$/)

    // Pruning the session removes its kept worktrees and their branches.
    const statePath = join(home, "sessions", out.sessionId, "state.json")
    const state = JSON.parse(readFileSync(statePath, "utf8")) as Record<string, unknown>
    const old = new Date(Date.now() - 40 * 86_400_000).toISOString()
    writeFileSync(statePath, JSON.stringify({ ...state, createdAt: old, updatedAt: old }))
    const pruned = await runDsh(["sessions", "prune", "--older-than", "30d"], { env: { DSH_HOME: home } })
    expect(pruned.code, pruned.stderr).toBe(0)
    expect(pruned.stdout).toContain(`removed worktree ${record!.path} (branch dsh/coder-1) of session ${out.sessionId}`)
    expect(branches(cwd)).toEqual(["main"])
    expect(worktreeDirs(cwd)).toEqual([cwd])
    for (const p of trees) expect(existsSync(p)).toBe(false)
  }, 90_000)

  for (const agent of ["sdk:dsh", "acp:dsh"]) {
    it(`runs an out-of-process ${agent} child in its worktree`, async () => {
      const cwd = repo()
      const out = await delegating(cwd, makeHome(), ["write gamma"], agent)
      const handle = agent.replace(":", "-") + "-1"
      expect(out.result).toContain(`on branch dsh/${handle}`)
      expect(readFileSync(join(cwd, "shared.txt"), "utf8")).toBe("original\n")
      const tree = worktreeDirs(cwd).find((p) => p.endsWith(handle))!
      expect(readFileSync(join(tree, "shared.txt"), "utf8")).toBe("gamma\n")
    }, 60_000)
  }

  it("gives each child of a swarm its own worktree, named in the swarm's notes", async () => {
    const cwd = repo()
    const out = await delegating(cwd, makeHome(), ["write one", "write two"], "coder", true)
    expect(out.result).toContain("Notes (2):")
    expect(out.result).toMatch(/- #1 write one \(coder-1\): the child's changes are kept in worktree .* on branch dsh\/coder-1/)
    expect(readFileSync(join(cwd, "shared.txt"), "utf8")).toBe("original\n")
    const contents = worktreeDirs(cwd).filter((p) => p !== cwd).map((p) => readFileSync(join(p, "shared.txt"), "utf8")).sort()
    expect(contents).toEqual(["one\n", "two\n"])
  }, 60_000)

  it("isolation: worktree in an agent file's frontmatter isolates every child of that type", async () => {
    const cwd = repo()
    const home = makeHome()
    mkdirSync(join(home, "agents"), { recursive: true })
    writeFileSync(join(home, "agents", "isolated.md"), "---\ndescription: writes in its own worktree\ntools: Read, Write\nisolation: worktree\n---\nWrite what you are told.\n")
    const out = await delegating(cwd, home, ["write zeta"], "isolated", false, false)
    expect(out.result).toContain("on branch dsh/isolated-1")
    expect(readFileSync(join(cwd, "shared.txt"), "utf8")).toBe("original\n")
    const tree = worktreeDirs(cwd).find((p) => p.endsWith("isolated-1"))!
    expect(readFileSync(join(tree, "shared.txt"), "utf8")).toBe("zeta\n")
  }, 60_000)

  it("removes the worktree and branch of a child that changed nothing", async () => {
    const cwd = repo()
    const home = makeHome()
    const out = await delegating(cwd, home, ["look"])
    expect(out.result).toContain("nothing to change")
    expect(out.result).not.toContain("kept in worktree")
    expect(branches(cwd)).toEqual(["main"])
    expect(worktreeDirs(cwd)).toEqual([cwd])
    const info = await runDsh(["subagents", "info", "coder-1", "--session", out.sessionId, "--json"], { env: { DSH_HOME: home } })
    expect((JSON.parse(info.stdout) as { worktree?: unknown }).worktree).toBeUndefined()
  }, 60_000)

  it("confines the child's file tools to its worktree: the main working tree is out of reach", async () => {
    const cwd = repo()
    const out = await delegating(cwd, makeHome(), [`escape ${join(cwd, "shared.txt")}`])
    expect(out.result).toMatch(/the write said: Error: .*outside/)
    expect(readFileSync(join(cwd, "shared.txt"), "utf8")).toBe("original\n")
    expect(branches(cwd)).toEqual(["main"])
  }, 60_000)

  it("is a tool error outside a git repository, naming why", async () => {
    const cwd = tempDir("dsh-nogit-")
    const out = await delegating(cwd, makeHome(), ["write alpha"])
    expect(out.result).toMatch(/is not in a git repository, so the child cannot get a worktree/)
    expect(existsSync(join(cwd, "shared.txt"))).toBe(false)
  }, 60_000)

  it("is a tool error when the branch exists or its ref is locked, and leaves no half-made worktree", async () => {
    const cwd = repo()
    git(cwd, "branch", "dsh/coder-1")
    const refs = join(git(cwd, "rev-parse", "--absolute-git-dir"), "refs", "heads", "dsh")
    mkdirSync(refs, { recursive: true })
    // Another git process holds the lock of coder-2's branch.
    writeFileSync(join(refs, "coder-2.lock"), "")
    const out = await delegating(cwd, makeHome(), ["write alpha", "write beta"])
    expect(out.result).toContain("branch dsh/coder-1 already exists")
    expect(out.result).toMatch(/could not add a worktree for coder-2 .*coder-2\.lock/)
    expect(branches(cwd)).toEqual(["dsh/coder-1", "main"])
    expect(worktreeDirs(cwd)).toEqual([cwd])
    expect(readFileSync(join(cwd, "shared.txt"), "utf8")).toBe("original\n")
  }, 60_000)
})
