import { AgentHost } from "@dsh/agent"
import { Discovery, TrustStore } from "@dsh/agent-files"
import type { PermissionPolicy } from "@dsh/tools"
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { join, resolve } from "node:path"
import { loadHarnessConfigFile } from "./ConfigFile.ts"
import { decodeClaudeHooks, type HookSettings } from "./HooksConfig.ts"

/**
 * What a project adds to a session from its own files — `.dsh/config.toml` `[permissions]` and
 * `[[hooks.*]]`, Claude Code's `.claude/settings.json` hooks — once it is trusted (`dsh agents
 * trust`, or `trusted` for the session): they widen what runs, so an untrusted project's are
 * ignored with a warning. A project whose config is the user's own (`$DSH_HOME` inside it) adds nothing.
 */
const invalid = (message: string) => new AgentHost.HostError({ reason: "InvalidInput", message })

const isTrusted = (home: string, root: string, trusted: boolean) =>
  trusted ? Effect.succeed(true) : TrustStore.makeFileTrustStore(home).isTrusted(root).pipe(Effect.orElseSucceed(() => false))

/** The project's `.dsh/config.toml`, unless it is absent or the user's own. */
const projectConfig = (home: string, root: string) => {
  const path = join(root, ".dsh", "config.toml")
  return !existsSync(path) || resolve(path) === resolve(home, "config.toml")
    ? Effect.succeed(undefined)
    : loadHarnessConfigFile(path).pipe(Effect.map((config) => ({ path, config })), Effect.mapError((e) => invalid(e.message)))
}

/** A trusted project's `[permissions]` (undefined when it has none, or is not trusted). */
export const projectPermissions = (home: string, cwd: string, trusted: boolean): Effect.Effect<PermissionPolicy.PermissionSettings | undefined, AgentHost.HostError> =>
  Effect.gen(function*() {
    const root = yield* Discovery.findProjectRoot(cwd)
    const found = yield* projectConfig(home, root)
    if (found === undefined || Object.keys(found.config.permissions).length === 0) return undefined
    if (yield* isTrusted(home, root, trusted)) return found.config.permissions
    yield* Effect.logWarning(`${found.path}: [permissions] ignored: the project is not trusted (dsh agents trust, or --trust-project)`)
    return undefined
  })

/** `.claude/settings.json` `hooks` (Claude Code's shape); a malformed one is an error naming the key. */
const claudeSettingsHooks = (path: string): Effect.Effect<ReadonlyArray<HookSettings>, AgentHost.HostError> =>
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

/** A trusted project's hooks: `[[hooks.*]]` of `.dsh/config.toml`, then `.claude/settings.json`'s. */
export const projectHooks = (home: string, cwd: string, trusted: boolean): Effect.Effect<ReadonlyArray<HookSettings>, AgentHost.HostError> =>
  Effect.gen(function*() {
    const root = yield* Discovery.findProjectRoot(cwd)
    const own = (yield* projectConfig(home, root))?.config.hooks ?? []
    const claude = yield* claudeSettingsHooks(join(root, ".claude", "settings.json"))
    if (own.length === 0 && claude.length === 0) return []
    if (yield* isTrusted(home, root, trusted)) return [...own, ...claude]
    yield* Effect.logWarning(`${root}: project hooks ignored: the project is not trusted (dsh agents trust, or --trust-project)`)
    return []
  })

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
