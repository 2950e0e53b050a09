import type { AgentNode, AgentStatus, AgentTree } from "./AgentTree.ts"

/** One line of a drawn tree, in columns, before any styling (a terminal renderer colours `status`). */
export interface TreeRow {
  readonly handle: string
  /** Box-drawing guides before the name: `├─ `, `│  └─ `, … */
  readonly guide: string
  /** `explore-1 (explore · spawn)` */
  readonly name: string
  readonly status: AgentStatus
  /** `12s`, `3m04s` */
  readonly elapsed: string
  /** `1,234 tok` */
  readonly tokens: string
  /** `$0.0123`, or empty without pricing */
  readonly cost: string
  /** `→ Read src/a.ts`, or empty */
  readonly tool: string
  /** `[todo: Running the tests]` (its todo list's item in progress), or empty */
  readonly todo: string
}

/** A finished agent's todo item is no longer "current". */
const SETTLED_ROW: ReadonlySet<AgentStatus> = new Set(["completed", "failed", "timeout", "cancelled", "lost"])
const oneLineTodo = (text: string): string => text.replace(/\s+/g, " ").trim()

/** `950ms`, `12s`, `3m04s`, `1h02m`. */
export const formatElapsed = (ms: number): string => {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`
  const s = Math.floor(ms / 1000)
  if (s < 60) return `${s}s`
  const m = Math.floor(s / 60)
  if (m < 60) return `${m}m${String(s % 60).padStart(2, "0")}s`
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, "0")}m`
}

/** `12,345` */
export const formatCount = (n: number): string => Math.round(n).toLocaleString("en-US")

/** `$0.0123` */
export const formatCost = (cost: number | undefined): string => (cost === undefined ? "" : `$${cost.toFixed(4)}`)

/** How long an agent has been at it (or took): from running (else queued) to its end (else `now`). */
export const elapsedOf = (node: AgentNode, now: number): number => {
  const from = node.startedAt ?? node.queuedAt
  return from === undefined ? 0 : Math.max(0, (node.endedAt ?? now) - from)
}

/** The tree as rows, `main` first, children under their parents in start order. */
export const treeRows = (tree: AgentTree, now: number): ReadonlyArray<TreeRow> => {
  const rows: Array<TreeRow> = []
  const visit = (node: AgentNode, prefix: string, last: boolean, top: boolean) => {
    rows.push({
      handle: node.handle,
      guide: top ? "" : `${prefix}${last ? "└─ " : "├─ "}`,
      name: `${node.handle} (${node.agent}${node.provider === "" ? "" : ` · ${node.provider}`})${node.archived ? " [archived]" : ""}`,
      status: node.status,
      elapsed: formatElapsed(elapsedOf(node, now)),
      tokens: `${formatCount(node.usage.totalTokens)} tok`,
      cost: formatCost(node.cost),
      tool: node.tool === undefined ? "" : `→ ${node.tool.name} ${node.tool.input}`.trimEnd(),
      todo: node.todo === undefined || SETTLED_ROW.has(node.status) ? "" : `[todo: ${oneLineTodo(node.todo)}]`
    })
    const kids = node.children.map((h) => tree.get(h)).filter((n) => n !== undefined)
    kids.forEach((child, i) => visit(child, top ? "" : `${prefix}${last ? "   " : "│  "}`, i === kids.length - 1, false))
  }
  visit(tree.main, "", true, true)
  return rows
}

/** Cuts `text` to `width` characters (an ellipsis marks the cut). */
export const clip = (text: string, width: number): string => {
  const chars = [...text]
  return chars.length <= width ? text : width <= 1 ? chars.slice(0, width).join("") : `${chars.slice(0, width - 1).join("")}…`
}

/** Column widths that fit every row. */
export const columnWidths = (rows: ReadonlyArray<TreeRow>) => ({
  name: Math.max(...rows.map((r) => [...r.guide].length + [...r.name].length)),
  status: Math.max(...rows.map((r) => r.status.length)),
  elapsed: Math.max(...rows.map((r) => r.elapsed.length)),
  tokens: Math.max(...rows.map((r) => r.tokens.length)),
  cost: Math.max(...rows.map((r) => r.cost.length))
})

/**
 * One row as text in aligned columns, cut to `width`. `style` wraps the status (a terminal
 * renderer colours it); it must not change the text's visible width.
 */
export const formatRow = (row: TreeRow, widths: ReturnType<typeof columnWidths>, width: number, style: (status: AgentStatus, text: string) => string = (_s, t) => t): string => {
  const name = `${row.guide}${row.name}`.padEnd(widths.name)
  const cells = [
    name,
    row.status.padEnd(widths.status),
    row.elapsed.padStart(widths.elapsed),
    row.tokens.padStart(widths.tokens),
    ...(widths.cost > 0 ? [row.cost.padStart(widths.cost)] : []),
    ...(row.todo === "" ? [] : [row.todo]),
    row.tool
  ]
  const plain = clip(cells.join("  ").trimEnd(), width)
  // Style only the status cell, if it survived the cut whole.
  const at = name.length + 2
  return plain.length >= at + row.status.length ? `${plain.slice(0, at)}${style(row.status, row.status)}${plain.slice(at + row.status.length)}` : plain
}

/** The tree as plain text lines no wider than `width`: what `dsh run` draws on a terminal. */
export const renderTreeLines = (tree: AgentTree, options: { readonly now: number; readonly width?: number | undefined }): ReadonlyArray<string> => {
  const rows = treeRows(tree, options.now)
  const widths = columnWidths(rows)
  return rows.map((r) => formatRow(r, widths, options.width ?? 120))
}

/** `4 agents: 3 completed, 1 failed · 5,432 tokens · $0.0123 · 12s` (cost only when known). */
export const treeSummary = (tree: AgentTree, now: number): string => {
  const nodes = tree.nodes()
  const counts = new Map<string, number>()
  for (const n of nodes) counts.set(n.status, (counts.get(n.status) ?? 0) + 1)
  const tokens = nodes.reduce((t, n) => t + n.usage.totalTokens, 0)
  const costs = nodes.flatMap((n) => (n.cost === undefined ? [] : [n.cost]))
  const byStatus = [...counts.entries()].map(([s, n]) => `${n} ${s}`).join(", ")
  return [
    `${nodes.length} agent${nodes.length === 1 ? "" : "s"}: ${byStatus}`,
    `${formatCount(tokens)} tokens`,
    ...(costs.length === 0 ? [] : [formatCost(costs.reduce((a, b) => a + b, 0))]),
    formatElapsed(elapsedOf(tree.main, now))
  ].join(" · ")
}
