import type { Messages } from "@dsh/core"

/** What `{{…}}` placeholders in a reply can refer to. */
export interface TemplateScope {
  readonly lastUser: string
  /** The first user message of the conversation (what a continued or forked agent remembers). */
  readonly firstUser: string
  /** Every user message of the conversation, joined with " | ". */
  readonly users: string
  readonly lastTool: string
  readonly step: number
  readonly groups: ReadonlyArray<string>
  /** Latest result per tool name, within the current turn. */
  readonly toolResults: ReadonlyMap<string, string>
  /** Every tool result of the current turn, in order. */
  readonly allToolResults: ReadonlyArray<string>
  /** Every result per tool name, in order, within the current turn. */
  readonly resultsByTool: ReadonlyMap<string, ReadonlyArray<string>>
}

const filters: Record<string, (s: string) => string> = {
  firstLine: (s) => s.split("\n").find((l) => l.trim() !== "")?.trim() ?? "",
  lineCount: (s) => String(s === "" ? 0 : s.replace(/\n$/, "").split("\n").length),
  trim: (s) => s.trim(),
  // The first sentence of the first prose paragraph: skips blanks and Markdown headings
  // (a README's one-line summary), joining a paragraph wrapped over several lines.
  summary: (s) => {
    const lines = s.split("\n").map((l) => l.replace(/^\s*\d+\t/, "").trim())
    const start = lines.findIndex((l) => l !== "" && !l.startsWith("#"))
    if (start < 0) return ""
    const end = lines.findIndex((l, i) => i > start && (l === "" || l.startsWith("#")))
    const paragraph = lines.slice(start, end < 0 ? undefined : end).join(" ")
    return /^.*?[.!?](?=\s|$)/.exec(paragraph)?.[0] ?? paragraph
  },
  // Read output is `cat -n` style; this drops the numbers to get the file text back.
  stripLineNumbers: (s) => s.split("\n").map((l) => l.replace(/^\s*\d+\t/, "")).join("\n")
}

const lookup = (key: string, scope: TemplateScope): string | undefined => {
  if (/^\d+$/.test(key)) return scope.groups[Number(key)] ?? ""
  if (key === "lastUser") return scope.lastUser
  if (key === "firstUser") return scope.firstUser
  if (key === "users") return scope.users
  if (key === "lastTool") return scope.lastTool
  if (key === "step") return String(scope.step)
  if (key === "toolResults") return scope.allToolResults.join("\n\n")
  if (key.startsWith("tool:")) return scope.toolResults.get(key.slice(5)) ?? ""
  if (key.startsWith("results:")) return (scope.resultsByTool.get(key.slice(8)) ?? []).join("\n\n")
  return undefined
}

/** Fills `{{key}}` and `{{key|filter|filter}}`; unknown keys are left as written. */
export const renderTemplate = (text: string, scope: TemplateScope): string =>
  text.replace(/\{\{([^{}|]+)((?:\|[A-Za-z]+)*)\}\}/g, (whole, rawKey: string, rawFilters: string) => {
    let value = lookup(rawKey.trim(), scope)
    if (value === undefined) return whole
    for (const f of rawFilters.split("|").filter((x) => x !== "")) value = filters[f]?.(value) ?? value
    return value
  })

/** Applies the template to every string inside a JSON value (tool-call arguments). */
export const renderDeep = (value: unknown, scope: TemplateScope): unknown => {
  if (typeof value === "string") return renderTemplate(value, scope)
  if (Array.isArray(value)) return value.map((v) => renderDeep(v, scope))
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderDeep(v, scope)]))
  }
  return value
}

/** Reads the conversation the way rules see it. */
export const conversationFacts = (messages: ReadonlyArray<Messages.Message>) => {
  const system = messages.filter((m) => m.role === "system").map((m) => m.content).join("\n")
  let lastUserIndex = -1
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === "user") {
      lastUserIndex = i
      break
    }
  }
  const lastUser = lastUserIndex >= 0 ? (messages[lastUserIndex]?.content ?? "") : ""
  const turn = messages.slice(lastUserIndex + 1)
  const step = turn.filter((m) => m.role === "assistant").length
  const toolResults = new Map<string, string>()
  const allToolResults: Array<string> = []
  const resultsByTool = new Map<string, Array<string>>()
  let lastTool = ""
  for (const m of turn) {
    if (m.role === "tool") {
      toolResults.set(m.name, m.content)
      allToolResults.push(m.content)
      resultsByTool.set(m.name, [...(resultsByTool.get(m.name) ?? []), m.content])
      lastTool = m.content
    }
  }
  const firstUser = messages.find((m) => m.role === "user")?.content ?? ""
  const users = messages.filter((m) => m.role === "user").map((m) => m.content).join(" | ")
  return { system, lastUser, firstUser, users, step, toolResults, allToolResults, resultsByTool, lastTool }
}
