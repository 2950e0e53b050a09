import { Hooks } from "@dsh/tools"

/** One command hook from settings: `[[hooks.<Event>]]` or Claude Code's `settings.json`. */
export interface HookSettings {
  readonly event: Hooks.HookEventName
  readonly matcher?: string | undefined
  readonly command: string
  /** Seconds; default 60. */
  readonly timeout?: number | undefined
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

type Fail = (key: string, what: string) => undefined

const entry = (event: Hooks.HookEventName, value: unknown, key: string, fail: Fail, command: unknown = isRecord(value) ? value.command : undefined): HookSettings | undefined => {
  if (!isRecord(value)) return fail(key, "must be a table with command (and optionally matcher, timeout)")
  if (typeof command !== "string" || command.trim() === "") return fail(`${key} command`, "must be a non-empty string (a shell command)")
  const matcher = value.matcher
  if (matcher !== undefined && typeof matcher !== "string") return fail(`${key} matcher`, "must be a string (a tool name or a regular expression)")
  const bad = typeof matcher === "string" ? Hooks.matcherError(matcher) : undefined
  if (bad !== undefined) return fail(`${key} matcher`, `= ${JSON.stringify(matcher)} is not a valid regular expression (${bad})`)
  const timeout = value.timeout
  if (timeout !== undefined && (typeof timeout !== "number" || !Number.isFinite(timeout) || timeout <= 0 || timeout > 3600)) {
    return fail(`${key} timeout`, `= ${JSON.stringify(timeout)} is not allowed: it must be a number of seconds from 0 to 3600 (above 0)`)
  }
  return { event, command, ...(typeof matcher === "string" ? { matcher } : {}), ...(timeout === undefined ? {} : { timeout }) }
}

const events = (table: Record<string, unknown>, key: string, fail: Fail) =>
  Object.entries(table).flatMap(([event, list]) => {
    if (!Hooks.isHookEventName(event)) {
      fail(`${key}.${event}`, `is not a hook event: the events are ${Hooks.HOOK_EVENTS.join(", ")}`)
      return []
    }
    if (!Array.isArray(list)) {
      fail(`${key}.${event}`, `must be a list of hooks ([[${key}.${event}]])`)
      return []
    }
    return list.map((v, i) => [event, v, `[[${key}.${event}]] #${i + 1}`] as const)
  })

/** `[[hooks.<Event>]]` tables with `matcher`, `command`, `timeout`; a malformed one fails naming its key. */
export const decodeHooksConfig = (raw: Readonly<Record<string, unknown>>, fail: Fail): ReadonlyArray<HookSettings> => {
  if (raw.hooks === undefined) return []
  if (!isRecord(raw.hooks)) return fail("[hooks]", "must be a table of events"), []
  return events(raw.hooks, "hooks", fail).flatMap(([event, v, key]) => entry(event, v, key, fail) ?? [])
}

/**
 * Claude Code's settings shape: `hooks: { PreToolUse: [{ matcher, hooks: [{ type: "command",
 * command, timeout }] }] }` (`.claude/settings.json`). Hooks of other types are skipped.
 */
export const decodeClaudeHooks = (settings: unknown, fail: Fail): ReadonlyArray<HookSettings> => {
  if (!isRecord(settings) || settings.hooks === undefined) return []
  if (!isRecord(settings.hooks)) return fail("hooks", "must be an object of events"), []
  return events(settings.hooks, "hooks", fail).flatMap(([event, group, key]) => {
    if (!isRecord(group) || !Array.isArray(group.hooks)) return fail(`${key} hooks`, "must be a list of { type, command, timeout }"), []
    return group.hooks.flatMap((h, i) => {
      if (isRecord(h) && h.type !== undefined && h.type !== "command") return []
      const withMatcher = isRecord(h) ? { ...h, ...(group.matcher === undefined ? {} : { matcher: group.matcher }) } : h
      return entry(event, withMatcher, `${key} hooks #${i + 1}`, fail) ?? []
    })
  })
}
