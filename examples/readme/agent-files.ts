import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { FileCatalog, ResolveAgents, TrustStore } from "@dsh/agent-files"
import { Effect } from "effect"

// A project with an agent file written for Claude Code (its `Task` tool), a Codex role, and a
// project `agent.md` that would replace dsh's built-in main agent.
const root = mkdtempSync(join(tmpdir(), "agent-files-"))
const write = (path: string, text: string) => {
  mkdirSync(dirname(join(root, path)), { recursive: true })
  writeFileSync(join(root, path), text)
}
write("repo/.git/HEAD", "ref: refs/heads/main\n")
write("repo/.agents/agents/reviewer.md", `---
name: reviewer
description: Strict code reviewer
tools: Read, Grep, Task
---
You review the code at \${cwd}.
`)
write("repo/.codex/agents/tester.toml", `name = "test_runner"
description = "Runs the tests"
developer_instructions = "Run the tests and report failures."
sandbox_mode = "read-only"
`)
write("repo/.dsh/agents/agent.md", "---\ndescription: The project's own main agent\noverride: true\n---\nYou are this project's agent.\n")
const cwd = join(root, "repo")
const options = { cwd, dshHome: join(root, "home", ".dsh"), userHome: join(root, "home") }

const program = Effect.gen(function*() {
  const first = yield* ResolveAgents.resolveAgents(options)
  const reviewer = first.agents.find((a) => a.name === "reviewer")!
  const tester = first.agents.find((a) => a.name === "test-runner")!
  // Vendor tool names are mapped (`Task` → `subagent`); a read-only Codex role loses Edit and Write.
  console.log(reviewer.scope, reviewer.tools) // project [ 'Read', 'Grep', 'subagent' ]
  console.log(tester.name, tester.disallowedTools) // test-runner [ 'Edit', 'Write' ]
  // A project file replaces a built-in only in a trusted project.
  console.log(first.projectTrusted, first.skipped.length) // false 1

  yield* TrustStore.makeFileTrustStore(options.dshHome).trust(first.projectRoot)
  const catalog = yield* FileCatalog.loadFileCatalog({ ...options, env: {} })
  console.log(catalog.systemPrompt) // You are this project's agent.
  console.log(catalog.render(reviewer, cwd) === `You review the code at ${cwd}.`) // true
})
await Effect.runPromise(program.pipe(Effect.ensuring(Effect.sync(() => rmSync(root, { recursive: true, force: true })))))
