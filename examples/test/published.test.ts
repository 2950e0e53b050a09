import { execFileSync } from "node:child_process"
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, inject, it } from "vitest"
import { MINIMAL_HARNESS, must, ROOT, run, treeBytes, workspacePackages } from "./support.ts"

/**
 * The packages as a harness author gets them: packed, installed with npm into a project
 * outside the workspace, type-checked strictly and run. Our other tests load `src/`; only
 * these see what the registry would serve. The pack and the install happen once per run, in
 * the project's global setup (`setup.ts`).
 */
const tarballs = new Map(Object.entries(inject("tarballs")))
const app = inject("app")

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

  it("errors made in one package are instances of the class another package exports", () => {
    const script = `
      import { LlmError } from "@dsh/llm"
      import { makeScriptedModel } from "@dsh/llm-scripted"
      import { Effect, Stream } from "effect"
      const model = makeScriptedModel({ rules: [{ reply: { error: { reason: "RateLimited", detail: "slow down" } } }] })
      const error = await Effect.runPromise(Effect.flip(Stream.runDrain(model.stream({ messages: [], tools: [] }))))
      console.log(error instanceof LlmError)`
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
