import { Version } from "@dsh/core"

/** `dsh --help`: the commands and flags (the CLI contract in brief). */
export const USAGE = `dsh: subagents for AI agent harnesses

Usage:
  dsh run [-p] "prompt" [--agent NAME | --agent-file PATH] [--model SPEC]
          [--session ID | --continue] [--output-format text|json|stream-json] [--cwd DIR]
          [--permission-mode default|acceptEdits|plan|bypass] [--allow RULE]… [--deny RULE]… [--yolo]
          [--store DIR|postgres://…] [--plugin-dir DIR]…   (plugins: a new session's, kept when continued)
          [--cluster]   (children on the cluster's runners; needs a postgres:// store)
  dsh agents list [--json] [--cwd DIR] [--trust-project] [--plugin-dir DIR]…
  dsh agents trust|untrust [--cwd DIR]
  dsh sessions list [--json]
  dsh sessions report [ID] --html FILE   (no ID: the latest session of this directory)
  dsh sessions prune --older-than AGE [--dry-run] [--json]   (AGE like 30d, 12h, 90m)
  dsh subagents list|info|log|send|stop [HANDLE|'#N'|all] ["message"] [--session ID] [--json] [--limit N] [--tools]
  dsh subagents watch [--session ID]   (no --session: the latest session of this directory)
  dsh acp [--agent NAME] [--model SPEC] [--cwd DIR]   (serves ACP on stdio; permission flags as for run)
  dsh sdk [--agent NAME] [--model SPEC] [--cwd DIR]   (serves the dsh SDK protocol on stdio; same)
  dsh mcp [--agent NAME | --agent-file PATH] [--model SPEC] [--session ID | --continue] [--cwd DIR]
          (serves subagent, send_message, list_agents, wait, stop over MCP on stdio; permission flags as for run)
  dsh a2a --listen HOST:PORT [--agent NAME] [--model SPEC] [--cwd DIR]
          (serves dsh as an A2A agent over HTTP; port 0: a free one, the URL is printed; permission flags as for run)
  dsh doctor                                           (what is available: bwrap, node, DSH_HOME, config)
  dsh resident status|stop [--json]                    (the opt-in warm resident: DSH_RESIDENT=1 or [cli] resident = true)
  dsh runner --store postgres://… [--listen HOST:PORT]   (hosts cluster children until SIGTERM; port 0: a free one)
  dsh demo
  dsh --version

Model specs: scripted[:<file>], openai:<model> (OPENAI_BASE_URL, OPENAI_API_KEY),
             anthropic:<model> (ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY); also aliases (sonnet,
             opus, haiku, and [models] in config.toml), bare ids (claude-* → anthropic;
             gpt-*, o1, o3, o4-* → openai) and provider/model. Children: [subagents] model;
             cost: [pricing."<spec>"] input/output (US dollars per million tokens).
Rules: Tool or Tool(pattern), e.g. Read, Bash(git status*), Write(.env), mcp__*;
       deny > ask > allow > the mode. Without a terminal, or with -p, "ask" denies.
State lives in $DSH_HOME (default ~/.dsh); config.toml has [permissions] and [sandbox].
Sessions may live elsewhere: --store DIR|postgres://… on run, sessions, subagents, acp, sdk and mcp
(or DSH_STORE, or store = "…" in config.toml).
`

/** `--version`, `-v`, `version` alone. */
const isVersionRequest = (argv: ReadonlyArray<string>): boolean =>
  argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v" || argv[0] === "version")

/**
 * Answers `--version` (alone), or else the usage (`--help`, `-h`, `help`: exit 0; no arguments:
 * exit 2) on stdout and exits, without loading any command. main.ts decides when.
 */
export const answerAndExit = (argv: ReadonlyArray<string>): never => {
  // A reader that went away (`dsh --help | head -1`) ends the output, not the process with a trace.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0)
  })
  process.stdout.write(isVersionRequest(argv) ? `${Version.VERSION}\n` : USAGE)
  process.exit(isVersionRequest(argv) || argv.length > 0 ? 0 : 2)
}
