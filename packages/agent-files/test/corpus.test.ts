import * as Fs from "node:fs"
import * as Path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { AgentFile, ResolveAgents } from "../src/index.ts"
import { CORPUS, corpusPresent } from "./fixtures/corpus.ts"
import { makeTree, removeTree } from "./fixtures/definitions/tree.ts"

/**
 * The compatibility corpus: real agent files from public repositories (Claude Code, OpenCode,
 * Gemini CLI, Copilot, Kiro, kimi-cli), listed in MANIFEST.tsv. It sits next to the repository
 * (`../shared/compat/agent-files` from the repository root), here and in CI.
 */
const present = corpusPresent("corpus.test.ts")

const walk = (dir: string): Array<string> =>
  Fs.readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((e) => (e.isDirectory() ? walk(Path.join(dir, e.name)) : [Path.join(dir, e.name)]))

const manifest = (): Map<string, string> => {
  const lines = Fs.readFileSync(Path.join(CORPUS, "MANIFEST.tsv"), "utf8").trim().split("\n").slice(1)
  return new Map(lines.map((l) => l.split("\t")).map((cols) => [cols[0]!, cols[5]!]))
}

const rel = (path: string) => Path.relative(CORPUS, path)

/** The tool a file was written for: MANIFEST.tsv's format, with its "other" told apart by where the file lives. */
const toolOf = (path: string, format: string | undefined): string => {
  if (format !== "other") return format ?? "unlisted"
  if (path.includes("/.kiro/")) return "kiro"
  if (path.includes("awesome-copilot") || /\.agent\.md$/.test(path)) return "copilot"
  if (path.includes("pi-mono")) return "pi"
  return "gemini-cli"
}

describe.skipIf(!present)("agent file corpus", () => {
  it("exists where the tests expect it", () => {
    assert.isTrue(Fs.existsSync(Path.join(CORPUS, "MANIFEST.tsv")), `corpus not found at ${CORPUS}`)
  })

  it("every file either loads or is skipped with a reason; none throws; the large majority load", () => {
    const files = walk(CORPUS)
    const formats = manifest()
    const results = new Map<string, AgentFile.AgentFileResult>()
    const notAgentFiles: Array<string> = []
    for (const path of files) {
      if (!/\.md$/i.test(path)) {
        notAgentFiles.push(rel(path)) // discovery only reads .md files
        continue
      }
      const result = AgentFile.parseAgentFileBytes(Fs.readFileSync(path), path, { scope: "extra" })
      if (result._tag === "Invalid") assert.isAbove(result.reason.length, 10, rel(path))
      results.set(rel(path), result)
    }
    const loaded = [...results.values()].filter((r) => r._tag === "Loaded")
    const skipped = [...results].filter(([, r]) => r._tag === "Invalid")
    const byFormat = new Map<string, { loaded: number; skipped: number }>()
    for (const [path, r] of results) {
      const format = toolOf(path, formats.get(path))
      const entry = byFormat.get(format) ?? { loaded: 0, skipped: 0 }
      if (r._tag === "Loaded") entry.loaded++
      else entry.skipped++
      byFormat.set(format, entry)
    }
    const repaired = loaded.filter((r) => r.warnings.some((w) => w.includes("not valid YAML"))).length
    console.log(
      `corpus: ${files.length} files, ${results.size} .md: ${loaded.length} loaded (${repaired} after YAML repair), ` +
        `${skipped.length} skipped; ${notAgentFiles.length} non-.md files ignored by discovery\n` +
        [...byFormat].map(([f, c]) => `  ${f}: ${c.loaded} loaded, ${c.skipped} skipped`).join("\n") + "\n" +
        skipped.map(([p, r]) => `  skipped ${p}: ${r._tag === "Invalid" ? r.reason : ""}`).join("\n")
    )
    assert.strictEqual(loaded.length + skipped.length, results.size)
    // Every file its own tool loads, dsh loads (issue #28): the rest are not agent files to their tools either.
    assert.isAtLeast(loaded.length, 190)
    // A skip says what to change: no bare "invalid".
    for (const [path, r] of skipped) if (r._tag === "Invalid") assert.match(r.reason, /\w+ \w+ \w+/, path)
    // Files whose YAML is invalid but that the tools they were written for accept still load.
    for (const [path, format] of formats) {
      if (format !== "claude-code") continue
      const r = results.get(path)
      if (r?._tag === "Invalid") assert.notMatch(r.reason, /malformed YAML/, path)
    }
  })

  it("specific corpus files load as their harness meant them", () => {
    const load = (path: string) => {
      const r = AgentFile.parseAgentFileBytes(Fs.readFileSync(Path.join(CORPUS, path)), path)
      if (r._tag !== "Loaded") throw new Error(`${path}: ${r.reason}`)
      return r.definition
    }
    assert.deepStrictEqual(load("wshobson__agents/plugins/arm-cortex-microcontrollers/agents/arm-cortex-expert.md").tools, [])
    assert.isUndefined(load("mylee04__claude-code-subagents/agents/business/business-analyst.md").tools)
    const opencode = load("stephen-cox__opencode-agents/.opencode/agent/explorer.md")
    assert.strictEqual(opencode.name, "explorer")
    assert.deepStrictEqual(opencode.tools, ["Read", "Glob", "Grep"])
    assert.include(load("rshah515__claude-code-subagents/orchestrators/project-manager.md").tools ?? [], "subagent")
    assert.deepStrictEqual(load("wshobson__agents/plugins/meigen-ai-design/agents/image-generator.md").tools, ["mcp__meigen__generate_image"])
    assert.strictEqual(load("Ushadow-io__Ushadow/.claude/plugins/test-automation/agents/qa-agent.md").name, "qa-agent")
    assert.strictEqual(load("google-gemini__gemini-cli/tools/gemini-cli-bot/.gemini/agents/WORKER.md").name, "worker")
    // Names of any case load under their kebab-case form, as OpenCode, Copilot and Gemini CLI load them.
    assert.strictEqual(load("darrenhinde__OpenAgentsControl/.opencode/agent/content/copywriter.md").name, "open-copywriter")
    assert.strictEqual(load("stephen-cox__opencode-agents/.opencode/agent/general_coder.md").name, "general-coder")
    assert.strictEqual(load("josstei__maestro-gemini/agents/code_reviewer.md").name, "code-reviewer")
    assert.strictEqual(load("github__awesome-copilot/agents/kubestellar-console.agent.md").name, "kube-stellar-console")
    assert.isAbove(load("laywill__awesome-claude-code-subagents/categories/02-architecture-and-design/api-designer.md").systemPrompt.length, 100)
  })

  it.effect("as an agent directory, the corpus resolves without failing and accounts for every file", () =>
    Effect.gen(function*() {
      const home = yield* Effect.promise(() => makeTree({ ".git/": "" }))
      const resolved = yield* ResolveAgents.resolveAgents({ cwd: home, dshHome: home, userHome: home, extraAgentDirs: [CORPUS] }).pipe(
        Effect.ensuring(Effect.promise(() => removeTree(home)))
      )
      const files = walk(CORPUS)
      const fromCorpus = resolved.agents.filter((a) => a.scope === "extra").map((a) => a.source)
      const accounted = [...fromCorpus, ...resolved.shadowed.map((s) => s.path), ...resolved.skipped.map((s) => s.path)]
      console.log(
        `corpus as extra dir: ${files.length} files: ${fromCorpus.length} agents, ${resolved.shadowed.length} shadowed, ` +
          `${resolved.skipped.length} skipped (${resolved.skipped.filter((s) => s.reason.includes("not an agent file")).length} not agent files)`
      )
      // Each file exactly once, in one of the three lists.
      assert.deepStrictEqual([...accounted].sort(), [...files].sort())
      // kimi-cli's specs load: the default agent and the ones it declares, by their declared names.
      const kimi = Path.join(CORPUS, "MoonshotAI__kimi-cli", "src", "kimi_cli", "agents", "default")
      const main = resolved.agents.find((a) => a.source === Path.join(kimi, "agent.yaml"))
      assert.strictEqual(main?.name, "default")
      assert.deepStrictEqual(main?.subagents, ["coder", "explore", "plan"])
      // Its subagents have built-in names: without override they lose to dsh's built-ins.
      assert.deepInclude(resolved.shadowed, { path: Path.join(kimi, "explore.yaml"), name: "explore", by: "builtin:explore" })
      assert.match(resolved.skipped.find((s) => s.path === Path.join(kimi, "system.md"))?.reason ?? "", /system prompt of .*agent\.yaml/)
    }))
})
