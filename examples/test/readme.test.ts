import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, inject, it } from "vitest"
import { Postgres } from "../../packages/testing-pg/src/index.ts"
import { exampleBlocks, exampleDir, exampleFiles, packagesWithExamples, ROOT, WITHOUT_EXAMPLE } from "../../scripts/readme-examples.ts"
import { must, run } from "./support.ts"

/** Examples that need a real PostgreSQL get its URL as `DSH_STORE` (a schema of their own); without one they skip. */
const NEEDS_POSTGRES = new Set(["session-pg"])
const pg = await Postgres.postgresForTests()
afterAll(() => pg?.stop())

/**
 * Every package README's main example is a file, `examples/readme/<package>.ts`: the README
 * holds it verbatim, and here it is type-checked and run in the app installed from the
 * tarballs, with the lines it must print (in this order, each a whole line).
 */
const EXPECTED: Readonly<Record<string, ReadonlyArray<string | RegExp>>> = {
  "acp-agent": ["agent: echo 1.0.0, loadSession: true", "You said: hi there", "stop: end_turn"],
  "agent": [
    "[ 'forecast' ] You answer weather questions for a user in /home/ana. Be brief.",
    "→ forecast {\"city\":\"Lisbon\"}",
    "completed Tomorrow in Lisbon: sunny, 24°C"
  ],
  "agent-files": [
    "project [ 'Read', 'Grep', 'subagent' ]",
    "test-runner [ 'Edit', 'Write' ]",
    "false 1",
    "You are this project's agent.",
    "true"
  ],
  "cli-resident": ["off", "on: DSH_RESIDENT=1", "off: DSH_RESIDENT=0", "the same process: []", "a reniced caller: [ 'nice' ]"],
  "core": ["unknown provider \"acp\"; available: fork", "turn-start → message", "2500 tokens, $0.0135", /^20261129T175430-[0-9a-f]{8}$/],
  "harness": ["My researcher says: The answer is 42.", "researcher-1 (researcher on spawn): completed"],
  "kit": ["My researcher says: The answer is 42.", "researcher-1 (researcher): completed"],
  "kit.dsh": ["true", "My researcher says: The answer is 42.", "researcher-1: completed"],
  "llm": ["text-delta, text-delta, text-delta, finish", "hello from dsh (stop, 13 tokens)", "echo:v2 echo:v1 echo:echo-3", "unknown model adapter \"openai\"; available: echo"],
  "llm-ai-sdk": ["hello from the AI SDK (stop, 8 tokens)"],
  "llm-anthropic": [
    "Two files changed.",
    "Glob {\"pattern\":\"src/**\"}",
    "tool-calls 52",
    "2 You are terse. 8192 {\"type\":\"enabled\",\"budget_tokens\":2048}",
    "2023-06-01"
  ],
  "llm-effect-ai": ["You said: hi", "You said: hello"],
  "llm-openai": [
    "Let me look.",
    "tool call: Read {\"path\":\"README.md\"}",
    "finish: tool-calls, 51 tokens",
    "2 requests: the 429 was retried",
    "openai: Configuration: OPENAI_API_KEY is not set"
  ],
  "mcp-server": ["subagent, send_message, list_agents, wait, stop", "The answer is 42.", "researcher-1/transcript"],
  "llm-scripted": ["Reading src/answer.ts. Read {\"path\":\"src/answer.ts\"}", "`export const answer = 42` looks fine. 128", "I only review files."],
  "sdk": ["main: subagent-start", "researcher-1: turn-end", "main: turn-end", "completed The answer is 42. [ 'researcher-1' ]"],
  "session": ["ticket 1", "1 turn-start, 2 message", "completed explore-1"],
  "session-pg": ["reader sees: 1 turn-start, 2 message", "reader may not run it: Owned", "runner heard: stop", "sessions: completed"],
  "subagent": [
    "[ 'coder' ]",
    "coder-1 completed FIX THE BUG",
    "NotAllowed main may not delegate to \"deployer\"; allowed: coder",
    "accepted coder-2, then completed"
  ],
  "subagent-a2a": ["My A2A child says: Ship it on Friday.", "a2a-echo-1 (a2a:echo on a2a): completed, 8 tokens"],
  "subagent-acp": ["My ACP child says: That is 5 words.", "acp-counter-1 (acp:counter on acp): completed, 10 tokens"],
  "subagent-cluster": ["explore-1 cluster completed It is dsh.toml."],
  "subagent-dsh-sdk": [
    "My dsh child says: Planned in my own process: Plan the release.",
    "sdk-dsh-1 (sdk:dsh on dsh-sdk): completed",
    "completed You asked: Plan the release."
  ],
  "subagent-inprocess.fork": [
    "user, assistant, tool, user",
    "fork-1 completed Knowing \"We ship v2 on Friday.\", I did: draft the changelog",
    "failed a fork keeps its parent's model; drop the model override or use another agent type"
  ],
  "subagent-inprocess": ["summarizer-1 got \"Be brief.\\n\\nSummarize the changelog.\"", "completed I was told: Be brief."],
  "subagent-outofprocess": [
    "shouter-1 completed SHIP IT ON FRIDAY",
    "shouter-1 turn-start, shouter-1 message, shouter-1 message, shouter-1 turn-end",
    "shouter-2 failed the child exited"
  ],
  "subagent-inprocess.spawn": ["explore-1 completed It is dsh.toml.", "TOML (you first asked: Where is the config?)"],
  "subprocess": ["\"hello\\n\" true SIGTERM", "unset hi 0", "PING", "prefix"],
  "telemetry": ["The answer is 42.", "chat example, execute_tool subagent, invoke_agent lead, invoke_agent researcher", "one trace: true"],
  "tool-subagent": [
    "- explore: reads and searches",
    "It is dsh.toml.",
    /^\[subagent explore-1 \(explore\) · completed · \d+ tokens · [\d.]+s\]$/,
    "Found it: It is dsh.toml."
  ],
  "tool-subagent.control": [
    "accepted researcher-1",
    "topic A is done.",
    /^\[subagent researcher-1 \(researcher\) · completed · \d+ tokens · [\d.]+s\]$/,
    "Sources for research topic A: the docs.",
    /^researcher-1 \(researcher\) is completed; last activity \S+; \d+ tokens$/
  ],
  "view": ["main completed", /^├─ researcher-\d completed$/, /^└─ researcher-\d completed$/, "main:completed researcher-1:completed researcher-2:completed"],
  "tool-subagent.report": [
    "Error: this parent asked for a structured result: pass `json`",
    "Error: json does not match the requested schema: files: Invalid input: expected array, received string",
    "reported: Found them. {\"files\":[\"a.ts\",\"b.ts\"]}",
    /^Reported to the parent\./
  ],
  "tools": [
    "add(a, b) deploy(env)",
    "3",
    "Error: invalid arguments for add: b: Invalid input: expected number, received undefined",
    "Error: unknown tool \"rm\". Available tools: add, deploy.",
    "deployed to staging",
    "Error: permission denied: production needs a human"
  ],
  "tools-mcp": ["The MCP server said: SHIP IT"],
  "tools-builtin": [
    "Read, Write, Edit, Glob, Grep, Bash, BashBackground, BashOutput, BashStop, TodoWrite, EnterPlanMode, ExitPlanMode, Skill",
    "Created notes/todo.md: wrote 20 bytes.",
    "     1\t- write docs",
    "     2\t- ship it",
    "notes/todo.md:2:- ship it",
    "todo.md",
    "[exit code 0]",
    /^Error: \/etc\/passwd is outside the allowed directories/
  ]
}

/** The expected lines that `output` lacks, in order: each must match a whole line after the previous one's. */
const missingLines = (output: string, expected: ReadonlyArray<string | RegExp>): Array<string | RegExp> => {
  const lines = output.split("\n")
  const missing: Array<string | RegExp> = []
  let at = 0
  for (const want of expected) {
    const found = lines.findIndex((line, i) => i >= at && (typeof want === "string" ? line === want : want.test(line)))
    if (found < 0) missing.push(want)
    else at = found + 1
  }
  return missing
}

describe("README examples in the repository", () => {
  it("every package but the CLI marks its example, and each marked block is its file byte for byte", () => {
    for (const { dir, readme } of packagesWithExamples()) {
      const blocks = exampleBlocks(readFileSync(readme, "utf8"), `packages/${dir}/README.md`)
      expect(blocks.map((b) => b.file), `packages/${dir}/README.md has no example marker`).toContain(`examples/readme/${dir}.ts`)
      for (const file of exampleFiles().filter((f) => exampleDir(f) === dir)) {
        expect(blocks.map((b) => b.file), `packages/${dir}/README.md does not show ${file}`).toContain(`examples/readme/${file}`)
      }
      for (const block of blocks) {
        expect(block.code, `packages/${dir}/README.md differs from ${block.file} (node scripts/readme-examples.ts --write)`)
          .toBe(readFileSync(join(ROOT, block.file), "utf8"))
      }
    }
  })

  it("the root README's first example is the kit's, byte for byte", () => {
    const blocks = exampleBlocks(readFileSync(join(ROOT, "README.md"), "utf8"), "README.md")
    expect(blocks[0]?.file).toBe("examples/readme/kit.ts")
    for (const block of blocks) {
      expect(block.code, `README.md differs from ${block.file} (node scripts/readme-examples.ts --write)`).toBe(readFileSync(join(ROOT, block.file), "utf8"))
    }
  })

  it("every example file is a package's, with its expected output listed here", () => {
    const dirs = packagesWithExamples().map((p) => p.dir)
    const files = exampleFiles().map((f) => f.replace(/\.ts$/, "")).sort()
    expect([...new Set(exampleFiles().map(exampleDir))].sort()).toEqual(dirs)
    expect(Object.keys(EXPECTED).sort()).toEqual(files)
    for (const dir of WITHOUT_EXAMPLE) expect(files.map(exampleDir)).not.toContain(dir)
  })
})

describe("README examples in the app installed from the tarballs", () => {
  const app = inject("app")

  it("type-check strictly (skipLibCheck off) under nodenext and bundler resolution", () => {
    must("npx", ["tsc", "-p", "readme/tsconfig.json"], app)
    must("npx", ["tsc", "-p", "readme/tsconfig.bundler.json"], app)
  })

  for (const file of exampleFiles()) {
    const name = file.replace(/\.ts$/, "")
    it.skipIf(NEEDS_POSTGRES.has(name) && pg === undefined)(`node readme/${file} exits 0 and prints what its README says`, async () => {
      const env = NEEDS_POSTGRES.has(name) ? { DSH_STORE: await pg!.createSchema() } : {}
      const r = run("node", [`readme/${file}`], app, env)
      expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0)
      expect(r.stderr).toBe("")
      expect(missingLines(r.stdout, EXPECTED[name] ?? []), r.stdout).toEqual([])
    })
  }
})
