import { execFileSync } from "node:child_process"
import * as Fs from "node:fs/promises"
import * as Path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { afterAll } from "vitest"
import { PolicyWarnings } from "@dsh/agent"
import { Builtins, ResolveAgents, ToolNames, TrustStore } from "../src/index.ts"
import { agentFile, makeTree, makeWorkspace, removeTree } from "./fixtures/definitions/tree.ts"

const roots: Array<string> = []
afterAll(() => Promise.all(roots.map(removeTree)))

const workspace = (files: Readonly<Record<string, string | Uint8Array>> = {}) =>
  Effect.promise(async () => {
    const ws = await makeWorkspace(files)
    roots.push(ws.root)
    return ws
  })

type Workspace = Awaited<ReturnType<typeof makeWorkspace>>

const resolve = (ws: Workspace, options: Partial<ResolveAgents.ResolveAgentsOptions> = {}) =>
  ResolveAgents.resolveAgents({ cwd: ws.cwd, dshHome: ws.dshHome, userHome: ws.userHome, ...options })

const byName = <A extends { readonly name: string }>(agents: ReadonlyArray<A>, name: string): A => {
  const agent = agents.find((a) => a.name === name)
  assert.isDefined(agent, `agent ${name}`)
  return agent!
}

describe("built-in agents", () => {
  it.effect("ship as files in the package: the default main agent, coder, explore and plan", () =>
    Effect.gen(function*() {
      const agents = yield* Builtins.loadBuiltinAgents()
      assert.deepStrictEqual(agents.map((a) => a.name).sort(), ["agent", "coder", "explore", "plan"])
      for (const a of agents) {
        assert.strictEqual(a.scope, "builtin")
        assert.strictEqual(a.source, `builtin:${a.name}`)
      }
      const main = byName(agents, Builtins.DEFAULT_AGENT_NAME)
      assert.strictEqual(main.mode, "primary")
      assert.isFalse(ResolveAgents.isDelegable(main))
      assert.isUndefined(byName(agents, "coder").tools)
      assert.deepStrictEqual(byName(agents, "explore").tools, ["Read", "Glob", "Grep"])
      assert.deepStrictEqual(byName(agents, "plan").tools, ["Read", "Glob", "Grep"])
      for (const name of ["coder", "explore", "plan"]) {
        const agent = byName(agents, name)
        assert.isTrue(ResolveAgents.isDelegable(agent))
        assert.match(agent.systemPrompt, /last message is therefore the complete, self-contained deliverable/)
        assert.deepStrictEqual(PolicyWarnings.agentPolicyWarnings(agent, [...ToolNames.BUILTIN_TOOL_NAMES, "subagent"]), [])
      }
    }))
})

describe("resolveAgents: discovery and precedence", () => {
  it.effect("with no agent files, the built-ins are the result", () =>
    Effect.gen(function*() {
      const ws = yield* workspace()
      const resolved = yield* resolve(ws)
      assert.deepStrictEqual(resolved.agents.map((a) => a.name), ["agent", "coder", "explore", "plan"])
      assert.deepStrictEqual(resolved.skipped, [])
      assert.deepStrictEqual(resolved.warnings, [])
      assert.strictEqual(resolved.projectRoot, ws.repo)
    }))

  it.effect("project beats extra beats user beats plugin; losers are recorded as shadowed", () =>
    Effect.gen(function*() {
      const ws = yield* workspace({
        "repo/.agents/agents/reviewer.md": agentFile({ description: "project reviewer" }),
        "team/reviewer.md": agentFile({ description: "extra reviewer" }),
        "home/.dsh/agents/reviewer.md": agentFile({ description: "user reviewer" }),
        "home/.dsh/agents/only-user.md": agentFile({ description: "user only" }),
        "plugin/agents/reviewer.md": agentFile({ description: "plugin reviewer" })
      })
      const resolved = yield* resolve(ws, {
        extraAgentDirs: [Path.join(ws.root, "team")],
        pluginAgentDirs: [Path.join(ws.root, "plugin", "agents")]
      })
      const reviewer = byName(resolved.agents, "reviewer")
      assert.strictEqual(reviewer.description, "project reviewer")
      assert.strictEqual(reviewer.scope, "project")
      assert.strictEqual(reviewer.source, Path.join(ws.repo, ".agents", "agents", "reviewer.md"))
      assert.strictEqual(byName(resolved.agents, "only-user").scope, "user")
      const project = Path.join(ws.repo, ".agents", "agents", "reviewer.md")
      assert.deepStrictEqual(resolved.shadowed, [
        { path: Path.join(ws.root, "team", "reviewer.md"), name: "reviewer", by: project },
        { path: Path.join(ws.dshHome, "agents", "reviewer.md"), name: "reviewer", by: project },
        { path: Path.join(ws.root, "plugin", "agents", "reviewer.md"), name: "reviewer", by: project }
      ])
      // Precedence between scopes is not a problem to warn about.
      assert.isFalse(resolved.warnings.some((w) => w.includes("reviewer")))
    }))

  it.effect("user beats plugin for a name no built-in has", () =>
    Effect.gen(function*() {
      const ws = yield* workspace({
        "home/.agents/agents/helper.md": agentFile({ description: "user helper" }),
        "plugin/helper.md": agentFile({ description: "plugin helper" })
      })
      const resolved = yield* resolve(ws, { pluginAgentDirs: [Path.join(ws.root, "plugin")] })
      assert.strictEqual(byName(resolved.agents, "helper").description, "user helper")
    }))

  it.effect("within a scope, .dsh/agents comes before .agents/agents, and subdirectories are scanned in order", () =>
    Effect.gen(function*() {
      const ws = yield* workspace({
        "repo/.dsh/agents/z/deep/dup.md": agentFile({ description: "dsh dir" }),
        "repo/.agents/agents/dup.md": agentFile({ description: "agents dir" }),
        "repo/.agents/agents/a/one.md": agentFile({ description: "one" }),
        "repo/.agents/agents/notes.txt": "not an agent",
        "repo/.agents/agents/README": "not an agent"
      })
      const resolved = yield* resolve(ws)
      assert.strictEqual(byName(resolved.agents, "dup").description, "dsh dir")
      assert.strictEqual(byName(resolved.agents, "one").scope, "project")
      // Every file is accounted for: a second file of the name is shadowed (and warned about,
      // being in the same scope); files that are no agent files are skipped, saying so.
      const first = Path.join(ws.repo, ".dsh", "agents", "z", "deep", "dup.md")
      assert.deepStrictEqual(resolved.shadowed, [{ path: Path.join(ws.repo, ".agents", "agents", "dup.md"), name: "dup", by: first }])
      assert.isTrue(resolved.warnings.some((w) => w.includes(`also defined by ${first} in the same (project) scope`)))
      assert.deepStrictEqual(resolved.skipped.map((s) => Path.basename(s.path)).sort(), ["README", "notes.txt"])
      assert.match(resolved.skipped[0]!.reason, /not an agent file/)
    }))

  it.effect("symlinked directories are followed once; a symlink loop does not hang the scan", () =>
    Effect.gen(function*() {
      const ws = yield* workspace({ "shared-agents/linked.md": agentFile({ description: "via link" }) })
      const dir = Path.join(ws.repo, ".agents", "agents")
      yield* Effect.promise(async () => {
        await Fs.mkdir(dir, { recursive: true })
        await Fs.symlink(Path.join(ws.root, "shared-agents"), Path.join(dir, "shared"))
        await Fs.symlink(dir, Path.join(dir, "loop"))
      })
      const resolved = yield* resolve(ws)
      assert.strictEqual(byName(resolved.agents, "linked").source, Path.join(dir, "shared", "linked.md"))
      assert.deepStrictEqual(resolved.skipped, [])
    }))

  it.effect("without .git the project root is cwd", () =>
    Effect.gen(function*() {
      const root = yield* Effect.promise(() => makeTree({ "work/.agents/agents/local.md": agentFile({ description: "d" }), "home/": "" }))
      roots.push(root)
      const cwd = Path.join(root, "work")
      const resolved = yield* ResolveAgents.resolveAgents({ cwd, dshHome: Path.join(root, "home", ".dsh"), userHome: Path.join(root, "home") })
      assert.strictEqual(resolved.projectRoot, cwd)
      assert.strictEqual(byName(resolved.agents, "local").scope, "project")
    }))

  it.effect("extra_agent_dirs: ~/ is the user home, relative paths are under the project root", () =>
    Effect.gen(function*() {
      const ws = yield* workspace({
        "home/team-agents/team-a.md": agentFile({ description: "d" }),
        "repo/.agents/team-agents/team-b.md": agentFile({ description: "d" })
      })
      const resolved = yield* resolve(ws, { extraAgentDirs: ["~/team-agents", ".agents/team-agents", "missing-dir"] })
      assert.strictEqual(byName(resolved.agents, "team-a").scope, "extra")
      assert.strictEqual(byName(resolved.agents, "team-b").scope, "extra")
      assert.deepStrictEqual(resolved.warnings, [])
    }))

  it.effect("invalid files are skipped with a reason and never stop the others", () =>
    Effect.gen(function*() {
      const big = new Uint8Array(10 * 1024 * 1024).fill(0x61)
      big.set(new TextEncoder().encode("---\ndescription: big\n---\n"))
      const ws = yield* workspace({
        "repo/.agents/agents/good.md": agentFile({ description: "fine" }),
        "repo/.agents/agents/nodesc.md": agentFile({ name: "nodesc" }),
        "repo/.agents/agents/bad-name.md": agentFile({ name: '"???"', description: "d" }),
        "repo/.agents/agents/binary.md": new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 1]),
        "repo/.agents/agents/huge.md": big,
        "repo/.agents/agents/plain.md": "# no frontmatter\n",
        "repo/.agents/agents/broken.md": "---\n- [unclosed\n---\nbody\n"
      })
      const resolved = yield* resolve(ws)
      assert.strictEqual(byName(resolved.agents, "good").description, "fine")
      const reasons = Object.fromEntries(resolved.skipped.map((s) => [Path.basename(s.path), s.reason]))
      assert.deepStrictEqual(Object.keys(reasons).sort(), ["bad-name.md", "binary.md", "broken.md", "huge.md", "nodesc.md", "plain.md"])
      assert.match(reasons["nodesc.md"]!, /missing required field "description"/)
      assert.match(reasons["bad-name.md"]!, /not kebab-case/)
      assert.match(reasons["binary.md"]!, /binary file/)
      assert.match(reasons["huge.md"]!, /file is 10485760 bytes, over the 262144-byte limit/)
      assert.match(reasons["plain.md"]!, /no frontmatter/)
      assert.match(reasons["broken.md"]!, /malformed YAML/)
    }))

  it.effect("discovery is bounded: FIFOs, devices and dangling links, deep or huge YAML and reserved names are skipped with a reason", () =>
    Effect.gen(function*() {
      // Deeply nested YAML: without bounds a 200 KB nest costs the parser seconds and hundreds of MB.
      const nested = `---\ndescription: deep\ntools: ${"[".repeat(20_000)}${"]".repeat(20_000)}\n---\nbody\n`
      const ws = yield* workspace({
        "repo/.agents/agents/deep.md": nested,
        "repo/.agents/agents/wide.md": `---\ndescription: wide\nnotes: |\n${"  a line of text\n".repeat(5_000)}---\nbody\n`,
        "repo/.agents/agents/fork.md": agentFile({ description: "not the fork type" }),
        "repo/.agents/agents/fine.md": agentFile({ description: "fine" })
      })
      const dir = Path.join(ws.repo, ".agents", "agents")
      yield* Effect.promise(async () => {
        execFileSync("mkfifo", [Path.join(dir, "pipe.md")])
        await Fs.symlink(Path.join(dir, "gone.md"), Path.join(dir, "dangling.md"))
        await Fs.symlink("/dev/null", Path.join(dir, "device.md"))
      })
      const started = Date.now()
      const resolved = yield* resolve(ws)
      assert.isBelow(Date.now() - started, 5_000, "bounded work, not seconds of YAML")
      assert.strictEqual(byName(resolved.agents, "fine").description, "fine")
      const reasons = Object.fromEntries(resolved.skipped.map((s) => [Path.basename(s.path), s.reason]))
      assert.match(reasons["deep.md"]!, /nests deeper than 32 levels/)
      assert.match(reasons["wide.md"]!, /frontmatter is \d+ bytes, over the 65536-byte limit/)
      assert.match(reasons["fork.md"]!, /"fork" is reserved for a built-in delegation type/)
      assert.match(reasons["pipe.md"]!, /not a regular file \(a FIFO\)/)
      assert.match(reasons["dangling.md"]!, /not a regular file \(a dangling symbolic link\)/)
      assert.match(reasons["device.md"]!, /not a regular file \(a device file\)/)
    }))

  it.effect("a repaired file loads with a warning that names it", () =>
    Effect.gen(function*() {
      const ws = yield* workspace({
        "home/.dsh/agents/loose.md": "---\ndescription: Triggers on: 'x', 'y'\n---\nbody\n"
      })
      const resolved = yield* resolve(ws)
      assert.strictEqual(byName(resolved.agents, "loose").description, "Triggers on: 'x', 'y'")
      assert.isTrue(resolved.warnings.some((w) => w.startsWith(Path.join(ws.dshHome, "agents", "loose.md")) && /not valid YAML/.test(w)))
    }))
})

describe("resolveAgents: overriding built-ins", () => {
  it.effect("a same-named file without override: true is ignored with a warning", () =>
    Effect.gen(function*() {
      const ws = yield* workspace({ "home/.dsh/agents/coder.md": agentFile({ description: "my coder" }) })
      const resolved = yield* resolve(ws)
      assert.strictEqual(byName(resolved.agents, "coder").scope, "builtin")
      assert.isTrue(resolved.warnings.some((w) => /agent "coder" has the name of a built-in agent but does not declare override: true/.test(w)))
    }))

  it.effect("override: true in the user scope replaces the built-in", () =>
    Effect.gen(function*() {
      const ws = yield* workspace({ "home/.dsh/agents/coder.md": agentFile({ description: "my coder", override: "true" }) })
      const coder = byName((yield* resolve(ws)).agents, "coder")
      assert.strictEqual(coder.description, "my coder")
      assert.strictEqual(coder.scope, "user")
    }))

  it.effect("--agent-file may always replace a built-in and beats every directory", () =>
    Effect.gen(function*() {
      const ws = yield* workspace({
        "elsewhere/coder.md": agentFile({ description: "explicit coder" }),
        "home/.dsh/agents/coder.md": agentFile({ description: "user coder", override: "true" })
      })
      const resolved = yield* resolve(ws, { agentFile: Path.join(ws.root, "elsewhere", "coder.md") })
      const coder = byName(resolved.agents, "coder")
      assert.strictEqual(coder.scope, "explicit")
      assert.strictEqual(coder.description, "explicit coder")
    }))

  it.effect("an invalid or missing --agent-file is a typed error", () =>
    Effect.gen(function*() {
      const ws = yield* workspace({ "bad.md": agentFile({ name: "x" }) })
      const invalid = yield* Effect.flip(resolve(ws, { agentFile: Path.join(ws.root, "bad.md") }))
      assert.strictEqual(invalid._tag, "AgentDefinitionError")
      assert.strictEqual(invalid.reason, "InvalidFile")
      assert.match(invalid.message, /bad\.md: missing required field "description"/)
      const missing = yield* Effect.flip(resolve(ws, { agentFile: "nope.md" }))
      assert.strictEqual(missing.reason, "NotFound")
      assert.strictEqual(missing.path, Path.join(ws.cwd, "nope.md"))
    }))
})

describe("resolveAgents: project trust", () => {
  const files = {
    "repo/.agents/agents/coder.md": agentFile({ description: "repo coder", override: "true" }),
    "repo/.agents/agents/agent.md": agentFile({ description: "repo main", override: "true" }, "Obey the repository."),
    "repo/.agents/agents/helper.md": agentFile({ description: "repo helper" })
  }

  it.effect("an untrusted project cannot override built-ins; non-overriding project agents still load", () =>
    Effect.gen(function*() {
      const ws = yield* workspace(files)
      const resolved = yield* resolve(ws)
      assert.isFalse(resolved.projectTrusted)
      assert.strictEqual(byName(resolved.agents, "coder").scope, "builtin")
      assert.strictEqual(byName(resolved.agents, Builtins.DEFAULT_AGENT_NAME).scope, "builtin")
      assert.strictEqual(byName(resolved.agents, "helper").scope, "project")
      assert.sameMembers(resolved.skipped.map((s) => s.reason), [
        "project agent overrides built-in \"agent\" but the project is not trusted (run with --trust-project)",
        "project agent overrides built-in \"coder\" but the project is not trusted (run with --trust-project)"
      ])
    }))

  it.effect("a recorded trust decision lets the overrides apply; untrust revokes it", () =>
    Effect.gen(function*() {
      const ws = yield* workspace(files)
      const store = TrustStore.makeFileTrustStore(ws.dshHome)
      yield* store.trust(ws.repo)
      const trusted = yield* resolve(ws)
      assert.isTrue(trusted.projectTrusted)
      assert.strictEqual(byName(trusted.agents, "coder").description, "repo coder")
      assert.strictEqual(byName(trusted.agents, Builtins.DEFAULT_AGENT_NAME).systemPrompt, "Obey the repository.")
      assert.deepStrictEqual(trusted.skipped, [])
      yield* store.untrust(ws.repo)
      assert.strictEqual(byName((yield* resolve(ws)).agents, "coder").scope, "builtin")
    }))

  it.effect("trustProject: true applies for this resolution without recording anything", () =>
    Effect.gen(function*() {
      const ws = yield* workspace(files)
      const resolved = yield* resolve(ws, { trustProject: true })
      assert.strictEqual(byName(resolved.agents, "coder").scope, "project")
      assert.deepStrictEqual(yield* TrustStore.makeFileTrustStore(ws.dshHome).decisions, [])
    }))

  it.effect("a corrupt trust store warns and is treated as untrusted", () =>
    Effect.gen(function*() {
      const ws = yield* workspace({ ...files, "home/.dsh/trusted-projects.json": "{not json" })
      const resolved = yield* resolve(ws)
      assert.isFalse(resolved.projectTrusted)
      assert.isTrue(resolved.warnings.some((w) => /trusted-projects\.json: the trust store is not valid JSON/.test(w)))
    }))
})

describe("TrustStore", () => {
  it.effect("records decisions atomically, keyed by the real path of the root", () =>
    Effect.gen(function*() {
      const ws = yield* workspace()
      const link = Path.join(ws.root, "repo-link")
      yield* Effect.promise(() => Fs.symlink(ws.repo, link))
      const store = TrustStore.makeFileTrustStore(Path.join(ws.root, "fresh-home"), { now: () => new Date("2026-11-29T00:00:00Z") })
      assert.isFalse(yield* store.isTrusted(ws.repo))
      yield* store.trust(link)
      assert.isTrue(yield* store.isTrusted(ws.repo))
      assert.deepStrictEqual(yield* store.decisions, [{ projectRoot: ws.repo, trusted: true, decidedAt: "2026-11-29T00:00:00.000Z" }])
      yield* store.untrust(ws.repo)
      assert.isFalse(yield* store.isTrusted(link))
      const dir = yield* Effect.promise(() => Fs.readdir(Path.join(ws.root, "fresh-home")))
      assert.deepStrictEqual(dir, ["trusted-projects.json"])
      const file = JSON.parse(yield* Effect.promise(() => Fs.readFile(store.location, "utf8")))
      assert.deepStrictEqual(file, { version: 1, projects: { [ws.repo]: { trusted: false, decidedAt: "2026-11-29T00:00:00.000Z" } } })
    }))
})

describe("resolveAgents: SYSTEM.md", () => {
  it.effect("replaces only the default main agent's prompt; description and tools stay built-in", () =>
    Effect.gen(function*() {
      const ws = yield* workspace({ "home/.dsh/SYSTEM.md": "You are Pirate dsh at ${cwd}.\n" })
      const resolved = yield* resolve(ws)
      const main = byName(resolved.agents, Builtins.DEFAULT_AGENT_NAME)
      const builtin = byName(yield* Builtins.loadBuiltinAgents(), Builtins.DEFAULT_AGENT_NAME)
      assert.strictEqual(main.systemPrompt, "You are Pirate dsh at ${cwd}.")
      assert.strictEqual(main.description, builtin.description)
      assert.strictEqual(main.source, Path.join(ws.dshHome, "SYSTEM.md"))
      assert.strictEqual(resolved.basePrompts.builtin, builtin.systemPrompt)
      assert.strictEqual(resolved.basePrompts.systemMd?.template, "You are Pirate dsh at ${cwd}.")
    }))

  it.effect("an empty SYSTEM.md has no effect", () =>
    Effect.gen(function*() {
      const ws = yield* workspace({ "home/.dsh/SYSTEM.md": "  \n\n" })
      const resolved = yield* resolve(ws)
      assert.strictEqual(byName(resolved.agents, Builtins.DEFAULT_AGENT_NAME).scope, "builtin")
      assert.isUndefined(resolved.basePrompts.systemMd)
    }))

  it.effect("beats a user agents/agent.md; a trusted project override and --agent-file beat SYSTEM.md", () =>
    Effect.gen(function*() {
      const ws = yield* workspace({
        "home/.dsh/SYSTEM.md": "system md",
        "home/.dsh/agents/agent.md": agentFile({ description: "user main", override: "true" }),
        "repo/.dsh/agents/agent.md": agentFile({ description: "project main", override: "true" })
      })
      const untrusted = yield* resolve(ws)
      assert.strictEqual(byName(untrusted.agents, Builtins.DEFAULT_AGENT_NAME).systemPrompt, "system md")
      assert.deepStrictEqual(untrusted.shadowed.find((x) => x.path === Path.join(ws.dshHome, "agents", "agent.md")), {
        path: Path.join(ws.dshHome, "agents", "agent.md"),
        name: "agent",
        by: Path.join(ws.dshHome, "SYSTEM.md")
      })
      // SYSTEM.md winning over the user's agent.md is the documented precedence, not a clash.
      assert.isFalse(untrusted.warnings.some((w) => w.includes("same (user) scope")))
      const trusted = yield* resolve(ws, { trustProject: true })
      assert.strictEqual(byName(trusted.agents, Builtins.DEFAULT_AGENT_NAME).description, "project main")
      const explicit = yield* resolve(ws, { agentFile: Path.join(ws.repo, ".dsh", "agents", "agent.md") })
      assert.strictEqual(byName(explicit.agents, Builtins.DEFAULT_AGENT_NAME).scope, "explicit")
    }))
})

describe("findAgent, agentsListJson, agentPolicyWarnings", () => {
  it.effect("findAgent fails with the available names", () =>
    Effect.gen(function*() {
      const ws = yield* workspace()
      const resolved = yield* resolve(ws)
      assert.strictEqual((yield* ResolveAgents.findAgent(resolved, "explore")).name, "explore")
      const exit = yield* Effect.exit(ResolveAgents.findAgent(resolved, "nope"))
      assert.isTrue(Exit.isFailure(exit))
      const error = yield* Effect.flip(ResolveAgents.findAgent(resolved, "nope"))
      assert.strictEqual(error.reason, "UnknownAgent")
      assert.strictEqual(error.message, "unknown agent \"nope\"; available: agent, coder, explore, plan")
    }))

  it.effect("agentsListJson has the CLI contract's shape, with null for 'all'", () =>
    Effect.gen(function*() {
      const ws = yield* workspace({ "repo/.agents/agents/broken.md": "nope" })
      const json = ResolveAgents.agentsListJson(yield* resolve(ws))
      assert.deepStrictEqual(Object.keys(json), ["agents", "skipped", "shadowed", "warnings"])
      assert.deepStrictEqual(json.agents.find((a) => a.name === "explore"), {
        name: "explore",
        description: json.agents.find((a) => a.name === "explore")!.description,
        scope: "builtin",
        source: "builtin:explore",
        tools: ["Read", "Glob", "Grep"],
        disallowedTools: null,
        subagents: [],
        override: false,
        model: null,
        disallowedToolsBind: null
      })
      assert.strictEqual(json.skipped.length, 1)
      assert.doesNotThrow(() => JSON.stringify(json))
    }))

  it.effect("agentPolicyWarnings reports patterns that can never match", () =>
    Effect.gen(function*() {
      const ws = yield* workspace({
        "home/.dsh/agents/typo.md": agentFile({ description: "d", tools: "read_files, Read*, mcp__github", subagents: "explore, ghost" })
      })
      const typo = byName((yield* resolve(ws)).agents, "typo")
      const warnings = PolicyWarnings.agentPolicyWarnings(typo, ToolNames.BUILTIN_TOOL_NAMES, ["explore"])
      assert.strictEqual(warnings.length, 4)
      assert.match(warnings[0]!, /no tool is named "read_files"/)
      assert.match(warnings[1]!, /wildcard outside an mcp__ pattern/)
      assert.match(warnings[2]!, /not a full mcp__<server>__<tool> name/)
      assert.match(warnings[3]!, /subagents: no agent is named "ghost"/)
    }))
})
