import { AgentFile, KimiAgentSpec } from "@dsh/agent-files"
import { ModelRegistry, ModelSpec } from "@dsh/llm"
import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { Effect, type Layer } from "effect"
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { describe, expect, it } from "vitest"
import { DshModels } from "@dsh/kit/dsh"
import { makeHome, runDsh, sessionIds, tempDir } from "./support.ts"

interface ListDoc {
  readonly agents: ReadonlyArray<{ readonly name: string; readonly scope: string; readonly source: string; readonly model: string | null; readonly tools: unknown; readonly subagents: unknown }>
  readonly skipped: ReadonlyArray<{ readonly path: string; readonly reason: string }>
  readonly shadowed: ReadonlyArray<{ readonly path: string; readonly name: string; readonly by: string }>
  readonly warnings: ReadonlyArray<string>
}

const write = (path: string, text: string) => {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, text)
}
const walk = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]))
/** Every path in exactly one of the three lists. */
const accounted = (doc: ListDoc, paths: ReadonlyArray<string>) => {
  const listed = [...doc.agents.map((a) => a.source), ...doc.skipped.map((s) => s.path), ...doc.shadowed.map((s) => s.path)]
  return paths.map((p) => [p, listed.filter((l) => l === p).length] as const)
}

describe("dsh agents list accounts for every file", () => {
  it("agents, skipped (with reasons), shadowed (same scope, a higher scope, a built-in), and every profile's warnings", async () => {
    const project = tempDir("dsh-project-")
    mkdirSync(join(project, ".git"))
    const home = makeHome()
    const agents = join(project, ".dsh", "agents")
    write(join(agents, "reviewer.md"), "---\ndescription: reviews code\ntools: Read, Rea*, mcp__github, Raed\nmodel: sonnet\n---\nReview.\n")
    write(join(agents, "team", "reviewer.md"), "---\ndescription: a second reviewer\n---\nAlso review.\n")
    write(join(agents, "coder.md"), "---\ndescription: my coder, without override\n---\nCode.\n")
    write(join(agents, "helper.md"), "---\ndescription: project helper\nmodel: gemini-3-pro\nsubagents: [reviewer, nobody]\n---\nHelp.\n")
    write(join(agents, "notes.txt"), "not an agent\n")
    write(join(agents, "broken.md"), "no frontmatter here\n")
    write(join(home, "agents", "helper.md"), "---\ndescription: user helper\n---\nHelp from home.\n")
    write(join(home, "agents", "cheap.md"), "---\ndescription: cheap\nmodel: anthropic/claude-haiku-4-5\n---\nBe cheap.\n")
    const r = await runDsh(["agents", "list", "--json"], { cwd: project, env: { DSH_HOME: home } })
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    const doc = JSON.parse(r.stdout) as ListDoc
    expect(Object.keys(doc)).toEqual(["agents", "skipped", "shadowed", "warnings", "acpAgents", "a2aAgents"])
    // Each scanned file in exactly one list.
    const files = [...walk(agents), ...walk(join(home, "agents"))]
    expect(accounted(doc, files)).toEqual(files.map((f) => [f, 1]))
    expect(doc.shadowed).toEqual(expect.arrayContaining([
      { path: join(agents, "team", "reviewer.md"), name: "reviewer", by: join(agents, "reviewer.md") },
      { path: join(agents, "coder.md"), name: "coder", by: "builtin:coder" },
      { path: join(home, "agents", "helper.md"), name: "helper", by: join(agents, "helper.md") }
    ]))
    expect(doc.skipped.find((s) => s.path.endsWith("notes.txt"))?.reason).toMatch(/not an agent file/)
    const warnings = doc.warnings.join("\n")
    expect(warnings).toMatch(/team\/reviewer\.md: agent "reviewer" is also defined by .*reviewer\.md in the same \(project\) scope/)
    expect(warnings).toMatch(/coder\.md: agent "coder" has the name of a built-in agent but does not declare override: true/)
    // Policy warnings, computed now rather than when the profile is applied at run time.
    expect(warnings).toMatch(/agent "reviewer" .*Rea\*/)
    expect(warnings).toMatch(/agent "reviewer" .*mcp__github/)
    expect(warnings).toMatch(/agent "reviewer" .*no tool is named "Raed"/)
    expect(warnings).toMatch(/agent "helper" .*subagents: no agent is named "nobody"/)
    // Models: aliases and provider/model resolve; what no adapter serves is said.
    expect(warnings).toMatch(/agent "helper" .*model: "gemini-3-pro" is not a model dsh can resolve/)
    expect(warnings).not.toMatch(/agent "(reviewer|cheap)".*model:/)
    expect(doc.agents.find((a) => a.name === "cheap")?.model).toBe("anthropic/claude-haiku-4-5")
    // The text form lists the same.
    const text = await runDsh(["agents", "list"], { cwd: project, env: { DSH_HOME: home } })
    expect(text.stdout).toContain(`shadowed ${join(agents, "coder.md")}: "coder" is builtin:coder`)
  }, 60_000)

  it("a repeated --agent-file is a usage error (exit 2), for run and for agents list", async () => {
    const cwd = tempDir()
    const home = makeHome()
    write(join(cwd, "a.md"), "---\ndescription: a\n---\nA.\n")
    write(join(cwd, "b.md"), "---\ndescription: b\n---\nB.\n")
    for (const args of [["run", "--agent-file", "a.md", "--agent-file", "b.md", "hello"], ["agents", "list", "--agent-file", "a.md", "--agent-file", "b.md"]]) {
      const r = await runDsh(args, { cwd, env: { DSH_HOME: home } })
      expect(r.code).toBe(2)
      expect(r.stdout).toBe("")
      expect(r.stderr.trim().split("\n")).toEqual(["dsh: --agent-file may be given once (got 2: a.md, b.md)"])
    }
    expect(sessionIds(home)).toEqual([])
  }, 60_000)

  it("dsh run --agent-file agent.yaml: a Kimi spec runs with its prompt, its tools and the subagents it declares", async () => {
    const server = await FakeOpenAIServer.startFakeOpenAIServer({
      respond: (request) => {
        const body = request.body as { messages: Array<{ role: string; content: string | null }> }
        if (body.messages[0]?.content?.includes("You check one thing.")) return { text: "checked" }
        const delegated = body.messages.some((m) => m.role === "tool")
        return delegated ? { text: "done" } : { toolCalls: [{ name: "subagent", arguments: { description: "check", agent: "checker", prompt: "check it" } }] }
      }
    })
    try {
      const cwd = tempDir()
      write(join(cwd, "spec", "agent.yaml"), [
        "version: 1",
        "agent:",
        "  extend: ./base.yaml",
        "  system_prompt_args:",
        "    ROLE: the lead",
        "  subagents:",
        "    checker:",
        "      path: ./checker.yaml",
        "      description: Checks one thing.",
        ""
      ].join("\n"))
      write(join(cwd, "spec", "base.yaml"), "version: 1\nagent:\n  system_prompt_path: ./prompts/lead.md\n  tools:\n    - kimi_cli.tools.agent:Agent\n    - kimi_cli.tools.file:ReadFile\n    - kimi_cli.tools.web:SearchWeb\n")
      write(join(cwd, "spec", "prompts", "lead.md"), "You are ${ROLE} in ${KIMI_WORK_DIR}.")
      write(join(cwd, "spec", "checker.yaml"), "version: 1\nagent:\n  system_prompt: You check one thing.\n  tools: [kimi_cli.tools.file:Grep]\n")
      const r = await runDsh(["run", "--agent-file", "spec/agent.yaml", "--model", "openai:any", "--output-format", "json", "go"], {
        cwd,
        env: { DSH_HOME: makeHome(), OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" }
      })
      expect(r.code).toBe(0)
      expect(JSON.parse(r.stdout)).toMatchObject({ status: "completed", result: "done", subagents: [{ name: "checker-1", agent: "checker", status: "completed" }] })
      const first = server.requests[0]!.body as { messages: Array<{ content: string }>; tools: Array<{ function: { name: string } }> }
      expect(first.messages[0]?.content).toBe(`You are the lead in ${cwd}.`)
      expect(first.tools.map((t) => t.function.name).sort()).toEqual(["Read", "subagent"])
      const child = server.requests.find((q) => (q.body as { messages: Array<{ content: string }> }).messages[0]?.content === "You check one thing.")!
      expect((child.body as { tools: Array<{ function: { name: string } }> }).tools.map((t) => t.function.name)).toEqual(["Grep"])
    } finally {
      await server.close()
    }
  }, 60_000)
})

const CORPUS = resolve(import.meta.dirname, "../../../../shared/compat/agent-files")
const corpus = existsSync(join(CORPUS, "MANIFEST.tsv"))
if (!corpus) console.log(`agents-list.test.ts: skipping the agent-file corpus test: ${CORPUS} is absent (it ships beside the repository)`)

describe.skipIf(!corpus)("the agent-file corpus through dsh agents list", () => {
  it("accounts for every file, and names the models no adapter serves", async () => {
    const home = makeHome(`extra_agent_dirs = [${JSON.stringify(CORPUS)}]\n`)
    const r = await runDsh(["agents", "list", "--json"], { env: { DSH_HOME: home } })
    expect(r.code).toBe(0)
    const doc = JSON.parse(r.stdout) as ListDoc
    const files = walk(CORPUS)
    expect(accounted(doc, files).filter(([, n]) => n !== 1)).toEqual([])
    // The models of every corpus file that loads (winning or shadowed), through the CLI's registry.
    const models = await Effect.runPromise(Effect.gen(function*() {
      const registry = yield* ModelRegistry.ModelRegistry
      const named: Array<{ readonly path: string; readonly model: string; readonly resolves: boolean }> = []
      for (const path of files) {
        const loaded = /\.ya?ml$/i.test(path)
          ? (yield* KimiAgentSpec.loadKimiAgentSpec(path, "extra")).result
          : /\.md$/i.test(path) ? AgentFile.parseAgentFileBytes(readFileSync(path), path, { scope: "extra" }) : undefined
        if (loaded?._tag !== "Loaded" || loaded.definition.model === undefined) continue
        const model = loaded.definition.model
        const resolves = model === ModelSpec.INHERIT_MODEL || (yield* Effect.result(registry.canonical(model)))._tag === "Success"
        named.push({ path, model, resolves })
      }
      return named
    }).pipe(Effect.provide(ModelRegistry.layerWith(DshModels.adapters) as Layer.Layer<ModelRegistry.ModelRegistry>)))
    const loading = doc.agents.filter((a) => a.source.startsWith(CORPUS)).length + doc.shadowed.length
    const unresolved = models.filter((m) => !m.resolves)
    console.log(
      `corpus: ${files.length} files, ${loading} load (${doc.shadowed.length} of them shadowed); ${models.length} name a model; ` +
        `${unresolved.length} do not resolve:\n` + unresolved.map((m) => `  ${m.model}  (${m.path.slice(CORPUS.length + 1)})`).join("\n")
    )
    // sonnet/opus/haiku, bare claude-*/gpt-* ids and provider/model all resolve now.
    expect(unresolved.filter((m) => /^(sonnet|opus|haiku|claude-[\w.-]+|gpt-[\w.-]+|anthropic\/.+)$/.test(m.model))).toEqual([])
    expect(unresolved.length).toBeLessThan(models.length / 5)
  }, 60_000)
})
