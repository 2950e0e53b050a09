import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"
import type { AcpAgentConfig } from "../AcpAgentConfig.ts"

/**
 * How the fake ACP agent behaves, each option one habit of a real vendor agent:
 * - `usage`: where it reports tokens — the prompt response's `usage` (`response`, the default),
 *   only `usage_update` notifications with a running cost (`update`, like Codex), only the
 *   prompt response's `_meta.quota.token_count` (`meta`, like Gemini CLI), or nowhere;
 * - `lateInput`: a tool call is announced without input and its command comes in a later
 *   `tool_call_update` (Claude Code);
 * - `permissionFirst`: the permission request is the first thing heard of a tool call (Gemini CLI);
 * - `exitOnEof: false`: keeps running after its stdin ends (Codex);
 * - `ignoreSigterm`: only SIGKILL ends it;
 * - `loadSession`: advertises `loadSession`, keeping its sessions in `stateDir`;
 * - `pidFile`: it appends its pid there (and the pid of the helper process `silent` starts).
 */
export interface FakeAcpAgentOptions {
  readonly name: string
  readonly usage?: "response" | "update" | "meta" | "none" | undefined
  readonly lateInput?: boolean | undefined
  readonly permissionFirst?: boolean | undefined
  readonly exitOnEof?: boolean | undefined
  readonly ignoreSigterm?: boolean | undefined
  readonly loadSession?: boolean | undefined
  readonly stateDir?: string | undefined
  readonly pidFile?: string | undefined
  /** Added to the agent's config (e.g. `mcpServers`, `initializeTimeout`). */
  readonly config?: Partial<AcpAgentConfig> | undefined
}

/** The fake agent's program: the built file next to this module, or its source in the repository. */
export const fakeAcpAgentScript = (): string => {
  const built = fileURLToPath(new URL("./fake-acp-agent.js", import.meta.url))
  return existsSync(built) ? built : fileURLToPath(new URL("./FakeAcpAgentMain.ts", import.meta.url))
}

/** The command-line flags for `options` (see the program's header). */
export const fakeAcpAgentArgs = (options: Omit<FakeAcpAgentOptions, "name" | "config">): ReadonlyArray<string> => [
  `--usage=${options.usage ?? "response"}`,
  ...(options.lateInput === true ? ["--late-input"] : []),
  ...(options.permissionFirst === true ? ["--permission-first"] : []),
  ...(options.exitOnEof === false ? ["--no-exit-on-eof"] : []),
  ...(options.ignoreSigterm === true ? ["--ignore-sigterm"] : []),
  ...(options.loadSession === true ? ["--load-session"] : []),
  ...(options.stateDir === undefined ? [] : ["--state", options.stateDir]),
  ...(options.pidFile === undefined ? [] : ["--pid-file", options.pidFile])
]

/**
 * A fake ACP agent, written with the ACP SDK, as an `[acp.agents.<name>]` entry: a real
 * process on stdio that imitates a vendor agent's habits (see `FakeAcpAgentOptions`). Its
 * "model" answers a small prompt language: the provider conformance prompts (`CONFORMANCE
 * echo|hang|fail|crash|recall|slow|partial`), `run COMMAND` and `write PATH` (a tool call
 * with a permission request; nothing is run), `whoami` (its pid and session), `mcp` (the MCP
 * servers it was given), `silent` (a model call that never returns), `flood MEGABYTES` (that much text, until cancelled). For tests of harnesses
 * that run vendor agents; it needs the `node` running the tests.
 */
export const fakeAcpAgent = (options: FakeAcpAgentOptions): AcpAgentConfig => ({
  name: options.name,
  description: `a fake vendor ACP agent (${options.usage ?? "response"} usage)`,
  command: process.execPath,
  args: [fakeAcpAgentScript(), ...fakeAcpAgentArgs(options)],
  ...options.config
})
