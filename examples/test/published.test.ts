import { execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, inject, it } from "vitest"
import { MINIMAL_HARNESS, must, ROOT, run, testingPackages, treeBytes, workspacePackages } from "./support.ts"

/**
 * The packages as a harness author gets them: packed, installed with npm into a project
 * outside the workspace, type-checked strictly and run. Our other tests load `src/`; only
 * these see what the registry would serve. The pack and the install happen once per run, in
 * the project's global setup (`setup.ts`).
 */
const tarballs = new Map(Object.entries(inject("tarballs")))
const app = inject("app")
const noRunnerApp = inject("noRunnerApp")

const tarList = (tarball: string): Array<string> =>
  execFileSync("tar", ["tzf", tarball], { encoding: "utf8" }).trim().split("\n").map((f) => f.replace(/^package\//, ""))

describe("the packed tarballs", () => {
  it("ship their build, sources, README and LICENSE, and nothing else", () => {
    for (const [name, { manifest }] of workspacePackages()) {
      const files = tarList(tarballs.get(name)!)
      const exports = (manifest as { exports?: Record<string, unknown> }).exports ?? {}
      for (const required of ["package.json", "README.md", "LICENSE"]) expect(files, `${name}: ${required}`).toContain(required)
      for (const target of Object.values(exports)) {
        for (const file of typeof target === "object" && target !== null ? Object.values(target) : [target]) {
          if (typeof file === "string" && !file.includes("*")) expect(files, `${name}: ${file}`).toContain(file.replace(/^\.\//, ""))
        }
      }
      const unexpected = files.filter((f) => !/^(dist|src|agents)\/|^(package\.json|README\.md|LICENSE|PROTOCOL\.md)$/.test(f))
      expect(unexpected, name).toEqual([])
      expect(files.filter((f) => /(^|\/)(test|\.tsbuild)\//.test(f)), name).toEqual([])
    }
  })

  it("publish as a dry run", () => {
    const out = run(join(ROOT, ".tools", "pnpm", "node_modules", ".bin", "pnpm"), ["publish", "-r", "--dry-run", "--no-git-checks"], ROOT)
    expect(out.status, out.stderr).toBe(0)
    for (const name of workspacePackages().keys()) expect(`${out.stdout}${out.stderr}`).toContain(`${name}@`)
  })

  it("a minimal harness install unpacks to under 5 MB of @dsh files, source maps included", () => {
    const bytes = MINIMAL_HARNESS.reduce((n, name) => n + treeBytes(join(app, "node_modules", name)), 0)
    expect(bytes).toBeLessThan(5 * 1024 * 1024)
  })
})

describe("examples/harness installed from the tarballs", () => {
  it("imports every entry of every @dsh package it has, as an app outside the workspace does", () => {
    const specs: Array<string> = []
    for (const [name, { manifest }] of workspacePackages()) {
      if (!existsSync(join(app, "node_modules", name))) continue
      const exports = (manifest as { exports?: Record<string, unknown> }).exports ?? {}
      for (const [subpath, target] of Object.entries(exports)) {
        if (target === null || subpath.includes("*") || subpath === "./package.json") continue
        // A `./conformance` entry needs a test runner: the no-runner app checks the others.
        if (subpath === "./conformance") continue
        specs.push(subpath === "." ? name : `${name}${subpath.slice(1)}`)
      }
    }
    expect(specs).toContain("@dsh/kit/dsh")
    expect(specs).toContain("@dsh/kit/dsh-cluster")
    const script = `for (const s of ${JSON.stringify(specs)}) { const m = await import(s); if (Object.keys(m).length === 0) throw new Error(s + " exports nothing") }`
    must(process.execPath, ["--input-type=module", "-e", script], app)
  })

  it("type-checks strictly (skipLibCheck off) under nodenext and bundler resolution", () => {
    must("npx", ["tsc", "-p", "tsconfig.json"], app)
    must("npx", ["tsc", "-p", "tsconfig.bundler.json"], app)
  })

  it("has one copy of effect, shared by every package", () => {
    const copies = must("npm", ["ls", "effect", "--all", "--parseable"], app).trim().split("\n")
    expect(copies).toHaveLength(1)
  })

  it("(a) a main agent delegates to an in-process child and prints its result", () => {
    expect(must("node", ["src/delegate.ts"], app)).toContain("My researcher says: The answer is 42.")
  })

  it("(b) two contexts offer different backends over one tree", () => {
    const out = must("node", ["src/contexts.ts"], app)
    expect(out).toContain("main context offers: local, remote")
    expect(out).toContain("sandboxed context offers: local")
    expect(out).toMatch(/remote: remote-\d+ completed: done remotely/)
    expect(out).toContain("remote: refused (Unsupported)")
  })

  it("(c) and (d): its own vitest suite passes (fixtures at the child boundary, provider conformance)", () => {
    const out = must("npx", ["vitest", "run", "--reporter=verbose"], app)
    expect(out).toContain("sees the child's result with its handle and status")
    expect(out).toContain("echo: subagent provider conformance")
  })

  it("an ACP child (built with the ACP SDK) continued warm: the same process answers send_message, usage from usage_update", () => {
    const out = must("node", ["src/acp-keepalive.ts"], app)
    const [first] = out.split("\n")
    expect(first).toMatch(/^you told me: the launch is on Friday \(pid \d+, turn 2\)$/)
    expect(out).toContain("acp-notes-1: completed, 120 tokens (from usage_update)")
  })

  it("the whole kit: announcement, wait, send_message, fork and a stop that reaches a grandchild", () => {
    const out = must("node", ["src/kit.ts"], app)
    expect(out).toContain("background: heard from researcher-1: completed")
    expect(out).toContain("wait: topic B is done")
    expect(out).toContain("follow-up: sources for research topic A")
    expect(out).toContain("fork: a fork that remembers the lead began with \"background\"")
    expect(out).toContain("stop: heard from manager-1: cancelled")
    expect(out).toMatch(/manager-1 \(depth 1, parent main\): cancelled/)
    expect(out).toMatch(/researcher-3 \(depth 2, parent manager-1\): cancelled/)
    // `wait` consumed researcher-2's outcome: it was never announced as a turn of its own.
    expect(out).not.toContain("heard from researcher-2")
  })

  it("permission rules decide every call of the tree, questions go to the harness's asker, Bash runs in the sandbox", () => {
    const out = must("node", ["src/permissions.ts"], app)
    expect(out).toContain("worker-1 ⚑ Bash(echo hello from the sandbox) allowed: allow: Bash(echo *)")
    expect(out).toContain("worker-1 ⚑ Bash(rm -rf scratch) denied: deny: Bash(rm *)")
    expect(out).toContain("asked: worker-1 wants to write: note.txt")
    expect(out).toContain("worker-1 ⚑ Write(note.txt) allowed: asked (mode: default), answered by example")
    expect(out).toContain("note.txt written: true")
  })

  it("models: aliases, a cheaper default model for children, a fallback noted in the result, and cost", () => {
    const out = must("node", ["src/models.ts"], app)
    expect(out).toContain("lead on scripted:lead: $0.0180")
    expect(out).toContain("worker-1 on scripted:worker: completed, $0.0012")
    expect(out).toContain("worker-2 on scripted:worker: completed, $0.0012")
    expect(out).toMatch(/Notes: the call's model "gemini-3-pro" cannot be used \(.*\); it ran on scripted:worker/)
  })

  it("swarm: one agent type over a list of items, a table when all settle, each child continuable", () => {
    const out = must("node", ["src/swarm.ts"], app)
    expect(out).toContain("Swarm of 4 × reviewer: 3 completed, 1 failed.")
    expect(out).toContain("| 1 | a.ts | reviewer-1 | completed | a.ts looks fine |")
    expect(out).toMatch(/\| 3 \| broken\.ts \| reviewer-3 \| failed \|/)
    expect(out).toContain("reviewer-4, again: d.ts looks fine")
  })

  it("the operator's view from the library: the run's live tree from its events, and the session's HTML report", () => {
    const out = must("node", ["src/report.ts"], app)
    expect(out).toContain("Both topics are covered.")
    expect(out).toMatch(/^main \(lead · scripted:survey\)\s+completed\s+94 tok$/m)
    expect(out).toMatch(/^├─ researcher-\d \(researcher · spawn\)\s+completed\s+52 tok$/m)
    expect(out).toMatch(/^└─ researcher-\d \(researcher · spawn\)\s+completed\s+52 tok$/m)
    expect(out).toContain("3 agents: 3 completed · 198 tokens")
    expect(out).toContain("report: 2 subagents, 198 tokens, statuses {\"completed\":2}")
    const file = /written to (\S+\.html)/.exec(out)?.[1]
    const html = readFileSync(file!, "utf8")
    expect(html).toContain("<details class=\"transcript\" id=\"t-researcher-1\"")
    expect(html).not.toMatch(/https?:\/\//)
  })

  it("pruning a store from the library: cleanup delete, then pruneSessions archives and deletes", () => {
    const out = must("node", ["src/prune.ts"], app)
    expect(out.match(/^after the run: 1 child archived \(cleanup: delete\), \d+ bytes → \d+$/gm)).toHaveLength(2)
    expect(out).toContain("dry run: would archive 2 children, delete 0 sessions")
    expect(out).toContain("pruned: archived 2 children, freed some bytes")
    expect(out).toContain("deleted 2 sessions; 0 left")
  })

  it("a wide fan-out from the library: 300 children in one session under a budget of 16 open transcripts", () => {
    const out = must("node", ["src/wide.ts"], app)
    expect(out).toContain("all counted: 300 of 300 children completed, 300 transcripts whole")
    const most = Number(/open transcripts at most: (\d+) \(budget 16\)/.exec(out)?.[1])
    expect(most).toBeGreaterThan(0)
    expect(most).toBeLessThanOrEqual(16)
  })

  it("errors made in one package are instances of the class another package exports", () => {
    const script = `
      import { LlmError } from "@dsh/llm"
      import { ScriptedModel } from "@dsh/llm-scripted"
      import { Effect, Stream } from "effect"
      const model = ScriptedModel.make({ rules: [{ reply: { error: { reason: "RateLimited", detail: "slow down" } } }] })
      const error = await Effect.runPromise(Effect.flip(Stream.runDrain(model.stream({ messages: [], tools: [] }))))
      console.log(error instanceof LlmError.LlmError)`
    writeFileSync(join(app, "instanceof.mjs"), script)
    expect(must("node", ["instanceof.mjs"], app).trim()).toBe("true")
  })

  it("the CLI runs from its tarball: --version, --help and the demo", () => {
    const version = workspacePackages().get("@dsh/cli")!.manifest.version
    expect(must("npx", ["dsh", "--version"], app).trim()).toBe(version)
    expect(must("npx", ["dsh", "--help"], app)).toContain("dsh run")
    const home = mkdtempSync(join(tmpdir(), "dsh-home-"))
    const demo = must("npx", ["dsh", "demo"], app, { DSH_HOME: home })
    expect(demo).toMatch(/explore-\d+ \(explore\) · completed/)
    expect(readdirSync(join(home, "sessions"))).toHaveLength(1)
  })
})

describe("examples/no-runner installed from the tarballs, with no test runner", () => {
  it("has every package with a testing entry, and no vitest anywhere Node would look", () => {
    for (const name of testingPackages()) expect(existsSync(join(noRunnerApp, "node_modules", name, "package.json")), name).toBe(true)
    expect(run("node", ["--input-type=module", "-e", "import.meta.resolve('vitest')"], noRunnerApp).status).not.toBe(0)
  })

  it("its node:test tests pass under plain node: every testing entry imports, a fixture runs a child, conformance checks run", () => {
    const out = must("node", ["--test", "--test-reporter=spec", "test/fixtures.test.mjs"], noRunnerApp)
    for (const name of testingPackages()) expect(out).toContain(`imported ${name}/testing`)
    expect(out).toContain("a fixture provider runs a child through @dsh/subagent, in the memory store")
    expect(out).toContain("echo conformance: a child past its timeout ends as timeout")
    expect(out).toMatch(/ℹ fail 0/)
  })
})

describe("an app on Effect 3", () => {
  it("gets npm's peer-dependency conflict at install, not a crash at run time", () => {
    const dir = mkdtempSync(join(tmpdir(), "dsh-effect3-"))
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "effect3-app", private: true, dependencies: { effect: "^3.17.0" } }))
    const r = run("npm", ["install", "--no-audit", "--no-fund", tarballs.get("@dsh/core")!], dir)
    expect(r.status).not.toBe(0)
    expect(r.stderr).toContain("ERESOLVE")
    expect(r.stderr).toMatch(/peer effect@"\^4\.1\.0"/)
  })
})
