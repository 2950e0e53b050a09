import type { Events } from "@dsh/core"
import { REPORT_CSS, REPORT_SCRIPT } from "./internal/reportAssets.ts"
import type { ReportAgent, ReportRun, SessionReport } from "./SessionReport.ts"
import { formatCost, formatCount, formatElapsed } from "./TreeText.ts"

/** Escapes text for HTML content and attribute values: every transcript string goes through it. */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === "\"" ? "&quot;" : "&#39;"))

const e = escapeHtml

export interface ReportHtmlOptions {
  /** Longer texts (tool outputs, messages) are cut to this many characters, saying how much was left out. Default 20,000. */
  readonly maxTextChars?: number | undefined
  /** The page title. Default `dsh session <id>`. */
  readonly title?: string | undefined
}

const time = (ms: number | undefined): string => (ms === undefined ? "" : new Date(ms).toISOString().replace("T", " ").replace("Z", ""))
const clock = (ts: string): string => ts.slice(11, 23)

const runDuration = (a: ReportAgent): number =>
  a.runs.reduce((t, r) => t + (r.endedAt !== undefined && r.startedAt !== undefined ? r.endedAt - r.startedAt : 0), 0)

const badge = (status: string) => `<span class="badge s-${e(status)}">${e(status)}</span>`
const agentLink = (handle: string) => `<a class="handle" href="#t-${e(handle)}">${e(handle)}</a>`
const label = (a: ReportAgent) => (a.index === 0 ? "main" : `#${a.index} ${a.handle}`)

const cut = (text: string, max: number): string =>
  text.length <= max ? e(text) : `${e(text.slice(0, max))}<span class="cut">… (${formatCount(text.length - max)} more characters)</span>`

/** One transcript record as a list item; unknown kinds show their JSON. */
const recordHtml = (r: Events.WireRecord, max: number): string => {
  const head = (kind: string, title: string, extra = "") =>
    `<li class="rec rec-${e(r.type)}${extra}" data-seq="${r.seq}"><span class="ts" title="${e(r.ts)}">${e(clock(r.ts))}</span><span class="kind">${kind}</span>${title}`
  const body = (text: string) => `<pre>${cut(text, max)}</pre>`
  switch (r.type) {
    case "turn-start":
      return `${head("turn", ` ${r.turn}`)}${body(r.prompt)}</li>`
    case "step-start":
      return `${head("step", ` ${r.turn}.${r.step}`)}</li>`
    case "message": {
      const calls = r.message.role === "assistant" && r.message.toolCalls !== undefined && r.message.toolCalls.length > 0
        ? `<div class="calls">${r.message.toolCalls.map((c) => `<code>${e(c.name)}</code>`).join(" ")}</div>`
        : ""
      return `${head(e(r.message.role), "", ` role-${e(r.message.role)}`)}${r.message.content === "" ? "" : body(r.message.content)}${calls}</li>`
    }
    case "tool-call":
      return `${head("tool call", ` <code>${e(r.name)}</code>`)}${body(r.input)}</li>`
    case "tool-result":
      return `${head(r.isError ? "tool error" : "tool result", ` <code>${e(r.name)}</code> <span class="muted">${e(String(r.durationMs))} ms</span>`, r.isError ? " is-error" : "")}${body(r.output)}</li>`
    case "usage":
      return `${head("usage", ` ${e(formatCount(r.usage.inputTokens))} in · ${e(formatCount(r.usage.outputTokens))} out <span class="muted">${e(r.model)}</span>`)}</li>`
    case "turn-end":
      return `${head("turn end", ` ${badge(r.status)} ${e(formatCount(r.usage.totalTokens))} tokens · ${e(formatElapsed(r.durationMs))}${r.error === undefined ? "" : ` · <span class="err">${e(r.error)}</span>`}`)}${r.result === "" ? "" : body(r.result)}</li>`
    case "subagent-start":
      return `${head("subagent", ` ${agentLink(r.handle)} (${e(r.agent)} · ${e(r.provider)})${r.background ? " in the background" : ""}: ${e(r.description)}`)}</li>`
    case "subagent-end":
      return `${head("subagent end", ` ${agentLink(r.handle)} ${badge(r.status)} ${e(formatCount(r.usage.totalTokens))} tokens · ${e(formatElapsed(r.durationMs))}`)}${r.result === "" ? "" : body(r.result)}</li>`
    case "permission":
      return `${head("permission", ` <code>${e(r.subject)}</code> <span class="decision d-${e(r.decision)}">${e(r.decision)}</span> via ${e(r.via)}${r.rule === undefined ? "" : ` (${e(r.rule)})`}${r.by === undefined ? "" : ` by ${e(r.by)}`}${r.remember === undefined ? "" : ` · ${e(r.remember)}`}`)}</li>`
    case "notice":
      return `${head(e(r.level), "", ` level-${e(r.level)}`)}${body(r.message)}</li>`
    case "hook":
      return `${head("hook", ` ${e(r.event)} <code>${e(r.hook)}</code> ${e(r.outcome)}${r.exitCode === undefined ? "" : ` (exit ${e(String(r.exitCode))})`} <span class="muted">${e(String(r.durationMs))} ms</span>`, r.outcome === "warning" ? " is-error" : "")}${r.message === undefined || r.message === "" ? "" : body(r.message)}</li>`
    default:
      return `${head(e(r.type), "")}${body(JSON.stringify(r))}</li>`
  }
}

/** The agent tree as nested lists, from `main` down. */
const treeHtml = (report: SessionReport): string => {
  const byParent = new Map<string, Array<ReportAgent>>()
  for (const a of report.agents.slice(1)) {
    const parent = a.parent !== undefined && report.agents.some((x) => x.handle === a.parent) ? a.parent : "main"
    byParent.set(parent, [...(byParent.get(parent) ?? []), a])
  }
  const item = (a: ReportAgent): string => {
    const kids = byParent.get(a.handle) ?? []
    const facts = [
      `<span class="type">${e(a.agent)}</span> · ${e(a.provider)}`,
      badge(a.status),
      `${e(formatCount(a.usage.totalTokens))} tokens`,
      ...(a.cost === undefined ? [] : [e(formatCost(a.cost))]),
      ...(a.index === 0 ? [] : [e(formatElapsed(runDuration(a)))]),
      ...(a.archived ? ["<span class=\"tag\">archived</span>"] : [])
    ].join(" · ")
    const desc = a.index === 0 || a.description === "" ? "" : ` <span class="desc">${e(a.description)}</span>`
    return `<li class="node" data-handle="${e(a.handle)}" data-status="${e(a.status)}">${a.index === 0 ? "" : `<span class="idx">#${a.index}</span> `}${agentLink(a.handle)} ${facts}${desc}${kids.length === 0 ? "" : `<ul>${kids.map(item).join("")}</ul>`}</li>`
  }
  return `<ul class="tree">${item(report.agents[0]!)}</ul>`
}

/** One bar per agent over the session's span: queued, then running in the colour of how the run ended. */
const timelineHtml = (report: SessionReport): string => {
  const { start, end } = report.span
  const width = Math.max(1, end - start)
  const pct = (t: number) => Math.min(100, Math.max(0, ((t - start) / width) * 100))
  const segment = (cls: string, from: number, to: number, title: string) =>
    `<span class="seg ${cls}" style="left:${pct(from).toFixed(3)}%;width:${Math.max(0.25, pct(to) - pct(from)).toFixed(3)}%" title="${e(title)}"></span>`
  const runHtml = (a: ReportAgent, r: ReportRun) => {
    const stop = r.endedAt ?? end
    const running = r.startedAt ?? (r.endedAt === undefined ? undefined : r.endedAt)
    return [
      segment("queued", r.queuedAt, running ?? stop, `${a.handle} queued at ${time(r.queuedAt)}`),
      ...(r.startedAt === undefined ? [] : [segment(`s-${e(r.status)}`, r.startedAt, stop, `${a.handle} ${r.status}: ${time(r.startedAt)} → ${r.endedAt === undefined ? "now" : time(r.endedAt)}`)])
    ].join("")
  }
  const rows = report.agents.map((a) =>
    `<div class="row" data-handle="${e(a.handle)}" data-status="${e(a.status)}"><a class="label" href="#t-${e(a.handle)}">${e(label(a))}</a><span class="state">${badge(a.status)}</span><div class="track">${a.runs.map((r) => runHtml(a, r)).join("")}</div></div>`
  )
  const legend = ["queued", "running", "completed", "failed", "timeout", "cancelled", "lost"].map((s) => `<span class="key"><span class="swatch ${s === "queued" ? "queued" : `s-${s}`}"></span>${s}</span>`).join("")
  return `<div class="axis"><span>${e(time(start))}</span><span>${e(formatElapsed(end - start))}</span><span>${e(time(end))}</span></div>${rows.join("")}<div class="legend">${legend}</div>`
}

const tableHtml = (report: SessionReport): string => {
  const hasCost = report.agents.some((a) => a.cost !== undefined)
  const head = ["#", "agent", "type", "backend", "parent", "status", "runs", "in", "out", "tokens", ...(hasCost ? ["cost"] : []), "running", "transcript"]
  const rows = report.agents.map((a) => {
    const cells = [
      a.index === 0 ? "" : String(a.index),
      agentLink(a.handle),
      e(a.agent),
      e(a.provider),
      e(a.parent ?? ""),
      badge(a.status),
      String(a.runs.length),
      e(formatCount(a.usage.inputTokens)),
      e(formatCount(a.usage.outputTokens)),
      e(formatCount(a.usage.totalTokens)),
      ...(hasCost ? [e(formatCost(a.cost))] : []),
      e(formatElapsed(runDuration(a))),
      a.archived ? "archived" : a.cleanup === "delete" ? "cleanup: delete" : ""
    ]
    return `<tr data-handle="${e(a.handle)}" data-status="${e(a.status)}">${cells.map((c) => `<td>${c}</td>`).join("")}</tr>`
  })
  const total = report.totals
  const foot = ["", "total", "", "", "", "", "", e(formatCount(total.usage.inputTokens)), e(formatCount(total.usage.outputTokens)), e(formatCount(total.usage.totalTokens)), ...(hasCost ? [e(formatCost(total.cost))] : []), "", ""]
  return `<table><thead><tr>${head.map((h) => `<th>${h}</th>`).join("")}</tr></thead><tbody>${rows.join("")}</tbody><tfoot><tr>${foot.map((c) => `<td>${c}</td>`).join("")}</tr></tfoot></table>`
}

const transcriptsHtml = (report: SessionReport, max: number): string =>
  report.agents.map((a) => {
    const tools = a.records.filter((r) => r.type === "tool-call").length
    const permissions = a.records.filter((r) => r.type === "permission").length
    const count = (n: number, what: string) => `${formatCount(n)} ${what}${n === 1 ? "" : "s"}`
    const facts = [count(a.records.length, "record"), count(tools, "tool call"), ...(permissions === 0 ? [] : [count(permissions, "permission decision")]), ...(a.archived ? ["archived"] : [])].join(" · ")
    return `<details class="transcript" id="t-${e(a.handle)}" data-handle="${e(a.handle)}" data-status="${e(a.status)}"><summary><span class="idx">${e(label(a))}</span> <span class="type">${e(a.agent)}</span> ${badge(a.status)} <span class="muted">${e(facts)}</span></summary>` +
      `<p class="where">${e(a.location)}${a.archived ? " (read from the session's archive)" : ""}</p>` +
      (a.description === "" || a.index === 0 ? "" : `<p class="desc">${e(a.description)}</p>`) +
      `<ol class="records">${a.records.map((r) => recordHtml(r, max)).join("")}</ol></details>`
  }).join("")

/**
 * A session report as one self-contained HTML page: the agent tree, a timeline bar per agent
 * (queued, running, how it ended), tokens and cost per agent and in total, and every transcript
 * in an expandable section with its tool calls and permission decisions. Inline CSS and script
 * only, under a Content-Security-Policy that allows no network fetch; every string from a
 * transcript is escaped.
 */
export const renderReportHtml = (report: SessionReport, options: ReportHtmlOptions = {}): string => {
  const max = options.maxTextChars ?? 20_000
  const s = report.session
  const title = options.title ?? `dsh session ${s.id}`
  const children = report.agents.length - 1
  const statusCounts = Object.entries(report.totals.byStatus).map(([k, v]) => `${v} ${k}`).join(", ")
  const facts: ReadonlyArray<readonly [string, string]> = [
    ["agent", s.agent],
    ["model", s.model],
    ["cwd", s.cwd],
    ["created", s.createdAt],
    ["updated", s.updatedAt],
    ...(report.owner === undefined ? [] : [["running in", `pid ${report.owner.pid} on ${report.owner.host} (a snapshot)`] as const])
  ]
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="generator" content="@dsh/view">
<title>${e(title)}</title>
<style>${REPORT_CSS}</style>
</head>
<body>
<header>
<h1>${e(title)} ${badge(s.status)}</h1>
<dl>${facts.map(([k, v]) => `<dt>${e(k)}</dt><dd>${e(v)}</dd>`).join("")}</dl>
<p class="totals" id="totals"><strong>${children}</strong> subagent${children === 1 ? "" : "s"}${statusCounts === "" ? "" : ` (${e(statusCounts)})`} · <strong>${e(formatCount(report.totals.usage.totalTokens))}</strong> tokens (${e(formatCount(report.totals.usage.inputTokens))} in · ${e(formatCount(report.totals.usage.outputTokens))} out)${report.totals.cost === undefined ? "" : ` · <strong>${e(formatCost(report.totals.cost))}</strong>`}</p>
</header>
<main>
<section id="tree"><h2>Agents</h2>${treeHtml(report)}</section>
<section id="timeline"><h2>Timeline</h2>${timelineHtml(report)}</section>
<section id="usage"><h2>Tokens and cost</h2>${tableHtml(report)}</section>
<section id="transcripts"><h2>Transcripts</h2><p class="actions"><button type="button" data-action="open">Expand all</button> <button type="button" data-action="close">Collapse all</button></p>${transcriptsHtml(report, max)}</section>
${report.warnings.length === 0 ? "" : `<section id="warnings"><h2>Warnings</h2><ul>${report.warnings.map((w) => `<li>${e(w)}</li>`).join("")}</ul></section>`}
</main>
<script>${REPORT_SCRIPT}</script>
</body>
</html>
`
}
