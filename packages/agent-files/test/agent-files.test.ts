import * as Fs from "node:fs"
import * as Path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { afterAll } from "vitest"
import { ResolveAgents } from "../src/index.ts"
import { makeWorkspace, removeTree } from "./fixtures/definitions/tree.ts"

/**
 * Agent files as their own tools load them (issue #28): Codex's TOML roles in `.codex/agents`,
 * OpenCode's names from file names in any case, Claude Code plugin layouts, Gemini CLI remote
 * agents. The files are small fixtures in fixtures/agent-files, laid out in a workspace the way
 * each tool expects them.
 */
const FIXTURES = Path.join(import.meta.dirname, "fixtures", "agent-files")
const fixture = (path: string) => Fs.readFileSync(Path.join(FIXTURES, path), "utf8")

const roots: Array<string> = []
afterAll(() => Promise.all(roots.map(removeTree)))

const workspace = (files: Readonly<Record<string, string>>) =>
  Effect.promise(async () => {
    const ws = await makeWorkspace(files)
    roots.push(ws.root)
    return ws
  })

describe("Codex agent roles (.codex/agents/*.toml)", () => {
  it.effect("project and user roles load as definitions; what dsh cannot apply is a note, a broken role a skip", () =>
    Effect.gen(function*() {
      const ws = yield* workspace({
        "repo/.codex/agents/security_auditor.toml": fixture("codex/security_auditor.toml"),
        "repo/.codex/agents/no-prompt.toml": fixture("codex/no-prompt.toml"),
        "repo/.codex/agents/broken.toml": fixture("codex/broken.toml"),
        "home/.codex/agents/docs-writer.toml": fixture("codex/docs-writer.toml")
      })
      const resolved = yield* ResolveAgents.resolveAgents({ cwd: ws.cwd, dshHome: ws.dshHome, userHome: ws.userHome })
      const auditor = resolved.agents.find((a) => a.name === "security-auditor")
      assert.isDefined(auditor)
      assert.strictEqual(auditor!.scope, "project")
      assert.strictEqual(auditor!.source, Path.join(ws.repo, ".codex", "agents", "security_auditor.toml"))
      assert.strictEqual(auditor!.description, "Reviews a branch for auth and input-validation risks.")
      assert.strictEqual(auditor!.systemPrompt, "Review the change like an owner.\nReport findings by severity, with file and line.")
      assert.strictEqual(auditor!.model, "gpt-5.3-codex")
      // sandbox_mode = "read-only": the role writes no files.
      assert.deepStrictEqual(auditor!.disallowedTools, ["Edit", "Write"])
      const docs = resolved.agents.find((a) => a.name === "docs-writer")
      assert.strictEqual(docs?.scope, "user")
      assert.isUndefined(docs?.disallowedTools)
      const notes = resolved.warnings.join("\n")
      assert.include(notes, "security_auditor.toml: name \"security_auditor\" is not kebab-case; dsh names this agent \"security-auditor\"")
      assert.include(notes, "security_auditor.toml: Codex settings dsh does not apply to agents ignored: model_reasoning_effort")
      assert.include(notes, "docs-writer.toml: Codex settings dsh does not apply to agents ignored: mcp_servers")
      const reasons = Object.fromEntries(resolved.skipped.map((s) => [Path.basename(s.path), s.reason]))
      assert.match(reasons["no-prompt.toml"]!, /missing required field "developer_instructions"/)
      assert.match(reasons["broken.toml"]!, /^malformed TOML \(a Codex agent role\)/)
      // The listing keeps its shape: each file in exactly one of agents, skipped, shadowed.
      const doc = ResolveAgents.agentsListJson(resolved)
      assert.deepStrictEqual(Object.keys(doc), ["agents", "skipped", "shadowed", "warnings"])
      assert.strictEqual(doc.skipped.length, 2)
    }))

  it.effect("--agent-file takes a role file too", () =>
    Effect.gen(function*() {
      const ws = yield* workspace({ "repo/roles/security_auditor.toml": fixture("codex/security_auditor.toml") })
      const resolved = yield* ResolveAgents.resolveAgents({ cwd: ws.repo, dshHome: ws.dshHome, userHome: ws.userHome, agentFile: "roles/security_auditor.toml" })
      assert.strictEqual(resolved.agents.find((a) => a.name === "security-auditor")?.scope, "explicit")
    }))
})

describe("OpenCode names", () => {
  it.effect("a file without name is named by its file name in any case; a name in any case loads kebab-cased, with a note", () =>
    Effect.gen(function*() {
      const ws = yield* workspace({
        "repo/.agents/agents/ReviewBot.md": fixture("opencode/ReviewBot.md"),
        "repo/.agents/agents/copywriter.md": fixture("opencode/copywriter.md")
      })
      const resolved = yield* ResolveAgents.resolveAgents({ cwd: ws.cwd, dshHome: ws.dshHome, userHome: ws.userHome })
      const bot = resolved.agents.find((a) => a.name === "review-bot")
      assert.strictEqual(bot?.source, Path.join(ws.repo, ".agents", "agents", "ReviewBot.md"))
      assert.deepStrictEqual(bot?.disallowedTools, ["Write", "Edit"])
      assert.isDefined(resolved.agents.find((a) => a.name === "open-copywriter"))
      assert.deepStrictEqual(resolved.skipped, [])
      const notes = resolved.warnings.join("\n")
      assert.include(notes, "ReviewBot.md: the file name's \"ReviewBot\" (no name field) is not kebab-case; dsh names this agent \"review-bot\"")
      assert.include(notes, "copywriter.md: name \"OpenCopywriter\" is not kebab-case; dsh names this agent \"open-copywriter\"")
    }))
})

describe("Claude Code plugins (.claude-plugin/plugin.json)", () => {
  it.effect("the plugin's agents/ and the files its manifest lists load at the plugin scope", () =>
    Effect.gen(function*() {
      const ws = yield* workspace({
        "plugins/review-kit/.claude-plugin/plugin.json": fixture("claude-plugin/.claude-plugin/plugin.json"),
        "plugins/review-kit/agents/plugin-reviewer.md": fixture("claude-plugin/agents/plugin-reviewer.md"),
        "plugins/review-kit/extra/triager.md": fixture("claude-plugin/extra/triager.md")
      })
      const resolved = yield* ResolveAgents.resolveAgents({
        cwd: ws.cwd,
        dshHome: ws.dshHome,
        userHome: ws.userHome,
        plugins: [Path.join(ws.root, "plugins", "review-kit")]
      })
      assert.strictEqual(resolved.agents.find((a) => a.name === "plugin-reviewer")?.scope, "plugin")
      assert.deepStrictEqual(resolved.agents.find((a) => a.name === "plugin-reviewer")?.tools, ["Read", "Grep"])
      assert.strictEqual(resolved.agents.find((a) => a.name === "triager")?.scope, "plugin")
      assert.deepStrictEqual(resolved.warnings, [])
    }))
})

describe("Gemini CLI remote agents (kind: remote)", () => {
  it.effect("a harness with an A2A backend takes them as a2a agents; without one they are skipped with how to declare them", () =>
    Effect.gen(function*() {
      const ws = yield* workspace({ "repo/.agents/agents/billing.md": fixture("gemini/billing.md") })
      const withA2a = yield* ResolveAgents.resolveAgents({ cwd: ws.cwd, dshHome: ws.dshHome, userHome: ws.userHome, remoteAgents: "a2a" })
      assert.deepStrictEqual(withA2a.remoteAgents, [{
        name: "billing-agent",
        url: "http://127.0.0.1:9/billing/.well-known/agent-card.json",
        cardJson: undefined,
        description: "Answers billing questions (a remote A2A agent).",
        source: Path.join(ws.repo, ".agents", "agents", "billing.md")
      }])
      assert.deepStrictEqual(withA2a.skipped, [])
      const without = yield* ResolveAgents.resolveAgents({ cwd: ws.cwd, dshHome: ws.dshHome, userHome: ws.userHome })
      assert.strictEqual(without.skipped.length, 1)
      assert.match(without.skipped[0]!.reason, /add \[a2a\.agents\.billing-agent\] url = "http:\/\/127\.0\.0\.1:9\/billing\/\.well-known\/agent-card\.json" to config\.toml/)
    }))
})
