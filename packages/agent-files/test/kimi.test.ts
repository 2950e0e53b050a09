import * as Path from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Template } from "@dsh/agent"
import { KimiAgentSpec, ResolveAgents } from "../src/index.ts"
import { makeTree, removeTree } from "./fixtures/definitions/tree.ts"

/** kimi-cli's YAML agent specs, with kimi-cli's semantics (see KimiAgentSpec.ts). */
const roots: Array<string> = []
afterAll(() => Promise.all(roots.map(removeTree)))
const tree = (files: Readonly<Record<string, string>>) =>
  Effect.promise(async () => {
    const root = await makeTree({ ".git/": "", ...files })
    roots.push(root)
    return root
  })
const load = (path: string) =>
  Effect.map(KimiAgentSpec.loadKimiAgentSpec(path, "extra"), ({ result }) => {
    if (result._tag === "Invalid") throw new Error(`${path}: ${result.reason}`)
    return result
  })

const BASE = `version: 1
agent:
  name: ""
  system_prompt_path: ./prompts/system.md
  system_prompt_args:
    ROLE: "a base"
    STYLE: terse
  tools:
    - "kimi_cli.tools.agent:Agent"
    - "kimi_cli.tools.shell:Shell"
    - "kimi_cli.tools.file:ReadFile"
    - "kimi_cli.tools.file:WriteFile"
    - "kimi_cli.tools.web:SearchWeb"
  subagents:
    coder:
      path: ./team/coder.yaml
      description: "Writes the code."
    reviewer:
      path: ./team/reviewer.yaml
      description: "Reviews it."
`

const files = {
  "specs/base/agent.yaml": BASE,
  "specs/base/prompts/system.md": "You are ${ROLE}, $STYLE. Work in ${KIMI_WORK_DIR} at ${KIMI_NOW}. Costs $$5. ${UNKNOWN}\n{% if KIMI_OS == \"Windows\" %}Use backslashes.{% endif %}",
  "specs/base/team/coder.yaml": "version: 1\nagent:\n  extend: ../agent.yaml\n  system_prompt_args:\n    ROLE: \"the coder\"\n  exclude_tools:\n    - \"kimi_cli.tools.agent:Agent\"\n  subagents:\n",
  "specs/base/team/reviewer.yaml": "version: 1\nagent:\n  extend: ../agent.yaml\n  when_to_use: read-only review\n  allowed_tools:\n    - \"kimi_cli.tools.file:ReadFile\"\n    - \"kimi_cli.tools.file:Glob\"\n  model: haiku\n",
  "specs/notes.txt": "not an agent"
}

describe("Kimi agent specs", () => {
  it.effect("extend chains merge field by field; prompts come from paths relative to the file that names them", () =>
    Effect.gen(function*() {
      const root = yield* tree(files)
      const coder = (yield* load(Path.join(root, "specs/base/team/coder.yaml"))).definition
      assert.strictEqual(coder.name, "coder")
      // The base's prompt file, with the coder's ROLE and the base's STYLE (args merge per key);
      // kimi-cli's built-ins become dsh's variables; `$$` is a dollar; unknown placeholders stay.
      assert.strictEqual(coder.systemPrompt, "You are the coder, terse. Work in ${cwd} at ${now}. Costs $5. ${UNKNOWN}\n")
      // Tools: the base's (Agent → subagent, Shell → Bash, …), minus what it excludes; SearchWeb has no dsh tool.
      assert.deepStrictEqual(coder.tools, ["subagent", "Bash", "Read", "Write"])
      assert.deepStrictEqual(coder.disallowedTools, ["subagent"])
      // `subagents:` with no value is none (kimi-cli's null), not the base's.
      assert.deepStrictEqual(coder.subagents, [])
      const reviewer = yield* load(Path.join(root, "specs/base/team/reviewer.yaml"))
      // allowed_tools narrows the inherited tools; the base's subagents are inherited.
      assert.deepStrictEqual(reviewer.definition.tools, ["Read"])
      assert.deepStrictEqual(reviewer.definition.subagents, ["coder", "reviewer"])
      assert.strictEqual(reviewer.definition.model, "haiku")
      assert.strictEqual(reviewer.definition.description, "read-only review")
      assert.isTrue(reviewer.warnings.some((w) => w.includes("Jinja tags are not supported: 1")))
      assert.isTrue(reviewer.warnings.some((w) => w.includes("tools dsh does not have are left out: SearchWeb")))
    }))

  it.effect("as a directory: a spec's subagents load under their declared names and descriptions; every file is accounted for", () =>
    Effect.gen(function*() {
      const root = yield* tree(files)
      const resolved = yield* ResolveAgents.resolveAgents({ cwd: root, dshHome: root, userHome: root, extraAgentDirs: [Path.join(root, "specs")] })
      const base = resolved.agents.find((a) => a.name === "base")!
      // An agent.yaml is named after its directory; with no description of its own it is a main agent.
      assert.strictEqual(base.source, Path.join(root, "specs/base/agent.yaml"))
      assert.strictEqual(base.mode, "primary")
      assert.deepStrictEqual(base.subagents, ["coder", "reviewer"])
      const reviewer = resolved.agents.find((a) => a.name === "reviewer")!
      assert.strictEqual(reviewer.description, "Reviews it.")
      // `coder` is a built-in name: the declared file loses to it without override, and says so.
      assert.deepInclude(resolved.shadowed, { path: Path.join(root, "specs/base/team/coder.yaml"), name: "coder", by: "builtin:coder" })
      assert.deepStrictEqual(resolved.skipped.map((s) => Path.relative(root, s.path)).sort(), ["specs/base/prompts/system.md", "specs/notes.txt"])
      assert.match(resolved.skipped.find((s) => s.path.endsWith("system.md"))!.reason, /system prompt of .*base\/agent\.yaml/)
    }))

  it.effect("--agent-file with a spec: its declared subagents load with it at the explicit scope (and override built-ins)", () =>
    Effect.gen(function*() {
      const root = yield* tree(files)
      const resolved = yield* ResolveAgents.resolveAgents({ cwd: root, dshHome: root, userHome: root, agentFile: Path.join(root, "specs/base/agent.yaml") })
      const coder = resolved.agents.find((a) => a.name === "coder")!
      assert.strictEqual(coder.scope, "explicit")
      assert.strictEqual(coder.description, "Writes the code.")
      assert.strictEqual(resolved.agents.find((a) => a.scope === "explicit" && a.name === "base")?.mode, "primary")
    }))

  it.effect("extend: default is dsh's default agent: its prompt, then the role; every tool and type", () =>
    Effect.gen(function*() {
      const root = yield* tree({ "psql/agent.yaml": "version: 1\n\nagent:\n  extend: default\n  name: kimi-psql\n  system_prompt_args:\n    ROLE_ADDITIONAL: |\n      You are a PostgreSQL assistant (\\d is not supported).\n" })
      const { definition } = yield* load(Path.join(root, "psql/agent.yaml"))
      assert.strictEqual(definition.name, "kimi-psql")
      assert.isUndefined(definition.tools)
      assert.isUndefined(definition.subagents)
      const prompt = Template.renderAgentPrompt(definition, { builtin: "DEFAULT PROMPT" }, {})
      assert.strictEqual(prompt.trim(), "DEFAULT PROMPT\n\nYou are a PostgreSQL assistant (\\d is not supported).")
    }))

  it.effect("what dsh cannot use is skipped with the reason", () =>
    Effect.gen(function*() {
      const root = yield* tree({
        "a.yaml": "version: 1\nagent:\n  extend: ./b.yaml\n",
        "b.yaml": "version: 1\nagent:\n  extend: ./a.yaml\n",
        "okabe.yaml": "version: 1\nagent:\n  extend: okabe\n",
        "v2.yaml": "version: 2\nagent:\n  name: x\n",
        "plain.yaml": "just: a mapping\n",
        "noprompt.yaml": "version: 1\nagent:\n  name: nothing\n",
        "broken.yaml": "version: 1\nagent: [unclosed\n"
      })
      const reason = (file: string) => Effect.map(KimiAgentSpec.loadKimiAgentSpec(Path.join(root, file), "extra"), ({ result }) => (result._tag === "Invalid" ? result.reason : "loaded"))
      assert.match(yield* reason("a.yaml"), /extend cycle: a\.yaml → b\.yaml → a\.yaml/)
      assert.match(yield* reason("okabe.yaml"), /kimi-cli built-in agent "okabe", which dsh does not have/)
      assert.match(yield* reason("v2.yaml"), /unsupported agent spec version 2/)
      assert.match(yield* reason("plain.yaml"), /not a Kimi agent spec/)
      assert.match(yield* reason("noprompt.yaml"), /no system prompt/)
      assert.match(yield* reason("broken.yaml"), /malformed YAML/)
    }))
})
