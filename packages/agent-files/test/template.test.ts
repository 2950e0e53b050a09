import * as Path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { afterAll } from "vitest"
import { type AgentDefinition, Template } from "@dsh/agent"
import { Builtins, TemplateVars } from "../src/index.ts"
import { makeTree, removeTree } from "./fixtures/definitions/tree.ts"

const roots: Array<string> = []
afterAll(() => Promise.all(roots.map(removeTree)))

const tree = (files: Readonly<Record<string, string>>) =>
  Effect.promise(async () => {
    const root = await makeTree(files)
    roots.push(root)
    return root
  })

const agent = (systemPrompt: string, source = "/agents/a.md"): AgentDefinition.AgentDefinition => ({
  name: "a",
  description: "d",
  systemPrompt,
  override: false,
  scope: "user",
  source
})

describe("renderSystemPrompt", () => {
  it("replaces known variables", () => {
    assert.strictEqual(Template.renderSystemPrompt("at ${cwd} on ${os}", { cwd: "/w", os: "Linux" }), "at /w on Linux")
  })

  it("keeps unknown variables as written", () => {
    assert.strictEqual(Template.renderSystemPrompt("${KIMI_OS} and ${future_var}", { os: "Linux" }), "${KIMI_OS} and ${future_var}")
  })

  it("a lone $ and other dollar forms are literal", () => {
    const template = "costs $5, $cwd, $ {cwd}, ${ cwd }, ${, $$, ${}"
    assert.strictEqual(Template.renderSystemPrompt(template, { cwd: "/w" }), template)
  })

  it("a known variable without a value renders empty", () => {
    assert.strictEqual(Template.renderSystemPrompt("[${agents_md}][${skills}][${cwd}]", { cwd: undefined }), "[][][]")
  })

  it("substitutes in a single pass: values are not expanded again", () => {
    assert.strictEqual(Template.renderSystemPrompt("${agents_md}", { agents_md: "use ${cwd} literally", cwd: "/w" }), "use ${cwd} literally")
  })

  it("knows the seed's variables", () => {
    for (const name of ["skills", "agents_md", "cwd", "cwd_listing", "os", "shell", "now", "additional_dirs_info", "base_prompt", "plugin_sections", "windows_notes", "additional_dirs_section", "skills_section"]) {
      assert.isTrue(Object.hasOwn(Template.TEMPLATE_VARIABLES, name), name)
    }
  })
})

describe("renderAgentPrompt: ${base_prompt}", () => {
  const builtin = "BUILTIN at ${cwd}"

  it("is the built-in prompt without SYSTEM.md", () => {
    assert.strictEqual(Template.renderAgentPrompt(agent("wrap[${base_prompt}]"), { builtin }, { cwd: "/w" }), "wrap[BUILTIN at /w]")
  })

  it("is SYSTEM.md in agent files, and the built-in prompt inside SYSTEM.md itself", () => {
    const systemMd = { path: "/home/.dsh/SYSTEM.md", template: "CUSTOM(${base_prompt})" }
    const base = { builtin, systemMd }
    assert.strictEqual(Template.renderAgentPrompt(agent("wrap[${base_prompt}]"), base, { cwd: "/w" }), "wrap[CUSTOM(BUILTIN at /w)]")
    const main = agent(systemMd.template, systemMd.path)
    assert.strictEqual(Template.renderAgentPrompt(main, base, { cwd: "/w" }), "CUSTOM(BUILTIN at /w)")
  })
})

describe("collectTemplateVars", () => {
  it.effect("computes the standard variables from the inputs", () =>
    Effect.gen(function*() {
      const root = yield* tree({
        "repo/.git/HEAD": "ref",
        "repo/AGENTS.md": "Root rules.",
        "repo/pkg/AGENTS.md": "Package rules.",
        "repo/pkg/src/index.ts": "",
        "home/.dsh/AGENTS.md": "Global rules."
      })
      const cwd = Path.join(root, "repo", "pkg")
      const vars = yield* TemplateVars.collectTemplateVars({
        cwd,
        now: new Date("2026-11-29T12:00:00Z"),
        env: { SHELL: "/bin/zsh" },
        platform: "linux",
        dshHome: Path.join(root, "home", ".dsh"),
        userHome: Path.join(root, "home"),
        additionalDirs: ["/data"],
        pluginInstructions: [{ plugin: "lint", text: "Run the linter." }]
      })
      assert.strictEqual(vars.cwd, cwd)
      assert.strictEqual(vars.os, "Linux")
      assert.strictEqual(vars.shell, "zsh (`/bin/zsh`)")
      assert.strictEqual(vars.now, "2026-11-29T12:00:00.000Z")
      assert.strictEqual(vars.cwd_listing, "AGENTS.md\nsrc/\n  index.ts")
      const agentsMd = vars.agents_md ?? ""
      assert.isTrue(agentsMd.indexOf("Global rules.") < agentsMd.indexOf("Root rules."))
      assert.isTrue(agentsMd.indexOf("Root rules.") < agentsMd.indexOf("Package rules."))
      assert.strictEqual(vars.skills, "")
      assert.strictEqual(vars.skills_section, "")
      assert.strictEqual(vars.windows_notes, "")
      assert.strictEqual(vars.additional_dirs_info, "- `/data`")
      assert.match(vars.additional_dirs_section ?? "", /^## Additional Directories/)
      assert.match(vars.plugin_sections ?? "", /^# Plugin Instructions\n\n## lint\n\nRun the linter\.$/)
    }))

  it.effect("bounds the listing and AGENTS.md", () =>
    Effect.gen(function*() {
      const files: Record<string, string> = { "AGENTS.md": "x".repeat(TemplateVars.TEMPLATE_LIMITS.agentsMdChars * 2) }
      for (let i = 0; i < 150; i++) files[`f${String(i).padStart(3, "0")}.txt`] = ""
      for (let i = 0; i < 30; i++) files[`dir/c${String(i).padStart(2, "0")}`] = ""
      const root = yield* tree(files)
      const vars = yield* TemplateVars.collectTemplateVars({ cwd: root, now: new Date(0), env: {}, platform: "win32", projectRoot: root })
      const listing = vars.cwd_listing ?? ""
      assert.match(listing, /\n {2}\.\.\. and 10 more\n/)
      assert.match(listing, /\n\.\.\. and 52 more$/)
      assert.isAtMost((vars.agents_md ?? "").length, TemplateVars.TEMPLATE_LIMITS.agentsMdChars + 200)
      assert.match(vars.agents_md ?? "", /\.\.\. \(truncated\)$/)
      assert.strictEqual(vars.os, "Windows")
      assert.match(vars.windows_notes ?? "", /Windows/)
    }))

  it.effect("every built-in prompt renders with no placeholder left", () =>
    Effect.gen(function*() {
      const root = yield* tree({ "README.md": "hi" })
      const vars = yield* TemplateVars.collectTemplateVars({ cwd: root, now: new Date(0), env: {}, platform: "linux", projectRoot: root })
      const builtins = yield* Builtins.loadBuiltinAgents()
      const main = builtins.find((a) => a.name === Builtins.DEFAULT_AGENT_NAME)!
      for (const a of builtins) {
        const prompt = Template.renderAgentPrompt(a, { builtin: main.systemPrompt }, vars)
        assert.notMatch(prompt, /\$\{/, a.name)
        assert.include(prompt, root)
      }
    }))
})
