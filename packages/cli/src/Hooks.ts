import { HostError } from "@dsh/agent"
import { findProjectRoot, makeFileTrustStore } from "@dsh/agent-files"
import { type CatalogRequest, decodeClaudeHooks, type HookSettings } from "@dsh/harness"
import type { ProcessLauncherShape } from "@dsh/subprocess"
import type { HookRegistration } from "@dsh/tools"
import { commandHook } from "@dsh/tools-builtin"
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { join, resolve } from "node:path"
import { type DshConfig, loadConfigFile } from "./Config.ts"
import type { CliContext } from "./Context.ts"

const invalid = (message: string) => new HostError({ reason: "InvalidInput", message })

/** `.claude/settings.json` `hooks` (Claude Code's shape); a malformed one is an error naming the key. */
const claudeSettingsHooks = (path: string): Effect.Effect<ReadonlyArray<HookSettings>, HostError> =>
  Effect.gen(function*() {
    if (!existsSync(path)) return []
    const text = yield* Effect.tryPromise({ try: () => readFile(path, "utf8"), catch: (e) => invalid(`cannot read ${path}: ${String(e)}`) })
    const json = yield* Effect.try({ try: () => JSON.parse(text) as unknown, catch: (e) => invalid(`${path}: ${e instanceof Error ? e.message : String(e)}`) })
    let error: string | undefined
    const hooks = decodeClaudeHooks(json, (key, what) => {
      error ??= `${path}: ${key} ${what}`
      return undefined
    })
    return error === undefined ? hooks : yield* Effect.fail(invalid(error))
  })

/**
 * A trusted project's hooks: `[[hooks.*]]` of `.dsh/config.toml` and Claude Code's
 * `.claude/settings.json`. An untrusted project's are ignored with a warning (they run commands).
 */
export const projectHooks = (home: string, cwd: string, trusted: boolean): Effect.Effect<ReadonlyArray<HookSettings>, HostError> =>
  Effect.gen(function*() {
    const root = yield* findProjectRoot(cwd)
    const dshPath = join(root, ".dsh", "config.toml")
    const own = existsSync(dshPath) && resolve(dshPath) !== resolve(home, "config.toml")
      ? (yield* loadConfigFile(dshPath).pipe(Effect.mapError((e) => invalid(e.message)))).hooks
      : []
    const claudePath = join(root, ".claude", "settings.json")
    const claude = yield* claudeSettingsHooks(claudePath)
    if (own.length === 0 && claude.length === 0) return []
    const isTrusted = trusted || (yield* makeFileTrustStore(home).isTrusted(root).pipe(Effect.orElseSucceed(() => false)))
    if (isTrusted) return [...own, ...claude]
    yield* Effect.logWarning(`${root}: project hooks ignored: the project is not trusted (dsh agents trust, or --trust-project)`)
    return []
  })

/** A session's command hooks: the user's `config.toml`, then the trusted project's. */
export const cliHooks = (ctx: CliContext, config: DshConfig, launcher: ProcessLauncherShape) => (request: CatalogRequest): Effect.Effect<ReadonlyArray<HookRegistration>, HostError> =>
  Effect.map(
    projectHooks(ctx.home, request.cwd, request.extra.trustProject === true),
    (project) => [...config.hooks, ...project].map((spec) => commandHook(launcher, spec))
  )

/**
 * An agent file's `hooks` frontmatter (Claude Code's shape) as command hooks for that agent;
 * a malformed entry is skipped with a warning naming it.
 */
export const cliAgentHooks = (launcher: ProcessLauncherShape) => (agent: string, hooks: Readonly<Record<string, unknown>>): ReadonlyArray<HookRegistration> => {
  const problems: Array<string> = []
  const specs = decodeClaudeHooks({ hooks }, (key, what) => {
    problems.push(`agent ${agent}: ${key} ${what}`)
    return undefined
  })
  for (const p of problems) process.stderr.write(`dsh: warning: ${p} (the hook is ignored)\n`)
  return specs.map((spec) => commandHook(launcher, spec))
}

/**
 * The hooks a dsh child process (`sdk:dsh`, `acp:dsh`) is given in its `config.toml`: those of
 * its tool calls and its own children. The tree's `Stop`, `UserPromptSubmit` and session events
 * stay with the main agent; the parent runs `SubagentStart`/`SubagentStop` for the child itself.
 */
export const childHooksToml = (hooks: ReadonlyArray<HookSettings>): string =>
  hooks
    .filter((h) => CHILD_EVENTS.has(h.event))
    .map((h) =>
      [
        `[[hooks.${h.event}]]`,
        `command = ${JSON.stringify(h.command)}`,
        ...(h.matcher === undefined ? [] : [`matcher = ${JSON.stringify(h.matcher)}`]),
        ...(h.timeout === undefined ? [] : [`timeout = ${h.timeout}`])
      ].join("\n") + "\n"
    ).join("")

const CHILD_EVENTS = new Set<string>(["PreToolUse", "PostToolUse", "SubagentStart", "SubagentStop"])
