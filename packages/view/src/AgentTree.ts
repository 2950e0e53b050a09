import { type Events, Usage } from "@dsh/core"
import type { Records } from "@dsh/subagent"

/** Where an agent is: waiting for a lane slot, working, or how its latest run ended. */
export type AgentStatus = "queued" | "running" | "completed" | "failed" | "timeout" | "cancelled" | "lost"

/** The tool an agent is running now. */
export interface CurrentTool {
  readonly id: string
  readonly name: string
  /** The call's input on one line, for display. */
  readonly input: string
  readonly since: number
}

/** One agent of a session tree as an operator sees it. `main` is the session's main agent. */
export interface AgentNode {
  readonly handle: string
  /** Its agent type (`explore`, `coder`, …). */
  readonly agent: string
  /** Its backend (`spawn`, `fork`, `acp`, `dsh-sdk`, …); for `main`, its model. */
  readonly provider: string
  /** Its parent's handle; undefined for `main`. */
  readonly parent: string | undefined
  readonly depth: number
  readonly description: string
  readonly status: AgentStatus
  /** Times (ms since the epoch) of the latest run: asked for, running, ended. */
  readonly queuedAt: number | undefined
  readonly startedAt: number | undefined
  readonly endedAt: number | undefined
  /** Tokens over all of its runs, the one in progress included. */
  readonly usage: Usage.Usage
  /** Dollars, when the harness prices its model (results and records carry `cost`). */
  readonly cost: number | undefined
  readonly tool: CurrentTool | undefined
  /** The item of its todo list in progress (its `activeForm`, else its content), from its latest `todo` event. */
  readonly todo: string | undefined
  readonly runs: number
  readonly archived: boolean
  /** Its children's handles, in the order they started. */
  readonly children: ReadonlyArray<string>
}

/**
 * A session's agents, built from the `AgentEvent` stream: the main agent's events and each
 * descendant's, tagged with its handle (what `AgentHost.prompt`'s `onEvent` and `onChildEvent`
 * give, or what the session's transcripts hold). Descriptors from the session's state may be
 * noted too: they are authoritative for what they record. Mutable and cheap to update, so a
 * tree of a thousand agents follows a busy stream; render it with `treeRows`.
 */
export interface AgentTree {
  readonly main: AgentNode
  readonly get: (handle: string) => AgentNode | undefined
  /** Every agent, `main` first, then depth-first in start order: the order a tree is drawn in. */
  readonly nodes: () => ReadonlyArray<AgentNode>
  /** Applies one event of agent `source` (`main` or a child's handle) that happened at `at` (ms). */
  readonly apply: (source: string, event: Events.AgentEvent, at: number) => void
  /** Takes what a persisted descriptor says of a child (status, type, backend, parent, usage). */
  readonly noteDescriptor: (d: Records.SubagentDescriptor & { readonly cost?: unknown }) => void
  /** Counts every change, so a renderer can skip redrawing an unchanged tree. */
  readonly version: () => number
}

interface MutableNode {
  handle: string
  agent: string
  provider: string
  parent: string | undefined
  depth: number
  description: string
  status: AgentStatus
  queuedAt: number | undefined
  startedAt: number | undefined
  endedAt: number | undefined
  /** Tokens of finished runs; `run` is the one in progress. */
  prior: Usage.Usage
  run: Usage.Usage
  cost: number | undefined
  tool: CurrentTool | undefined
  todo: string | undefined
  runs: number
  archived: boolean
  children: Array<string>
}

const SETTLED = new Set<AgentStatus>(["completed", "failed", "timeout", "cancelled", "lost"])

const oneLine = (text: string, max = 200): string => {
  const flat = text.replace(/[\u0000-\u001f\u007f]+/g, " ").replace(/\s+/g, " ").trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

/** A number field an event or record may carry (e.g. `cost` where pricing is configured). */
const numberField = (value: unknown, key: string): number | undefined => {
  if (typeof value !== "object" || value === null || !(key in value)) return undefined
  const field = (value as Record<string, unknown>)[key]
  return typeof field === "number" && Number.isFinite(field) ? field : undefined
}

/** The cost an event, result or record carries, at its top level or in its usage. */
export const costIn = (value: unknown): number | undefined =>
  numberField(value, "cost") ?? (typeof value === "object" && value !== null && "usage" in value ? numberField((value as { usage: unknown }).usage, "cost") : undefined)

/** A node that has not been seen running yet. */
const blankNode = (main: TreeMain, handle: string, depth: number, parent: string | undefined): MutableNode => ({
  handle,
  agent: handle === "main" ? main.agent ?? "main" : handle.replace(/-\d+$/, ""),
  provider: handle === "main" ? main.model ?? "" : "",
  parent,
  depth,
  description: "",
  status: "queued",
  queuedAt: undefined,
  startedAt: undefined,
  endedAt: undefined,
  prior: Usage.emptyUsage,
  run: Usage.emptyUsage,
  cost: undefined,
  tool: undefined,
  todo: undefined,
  runs: 0,
  archived: false,
  children: []
})

/** The agent produced output: it is running (unless its run already ended). */
const markWorking = (node: MutableNode, at: number) => {
  if (node.status === "queued") {
    node.status = "running"
    node.startedAt ??= at
  }
}

interface Links {
  readonly ensure: (handle: string, parent: string) => MutableNode
  readonly attach: (node: MutableNode, parent: string) => void
}

/** Applies one event of `source` to its `node`; false when the event changes nothing shown. */
const applyEvent = (links: Links, node: MutableNode, source: string, event: Events.AgentEvent, at: number): boolean => {
  switch (event.type) {
    case "subagent-start": {
      const child = links.ensure(event.handle, source)
      links.attach(child, source)
      child.agent = event.agent
      child.provider = event.provider
      if (event.description !== "") child.description = event.description
      child.prior = Usage.addUsage(child.prior, child.run)
      child.run = Usage.emptyUsage
      child.status = "queued"
      child.queuedAt = at
      child.startedAt = undefined
      child.endedAt = undefined
      child.tool = undefined
      child.archived = false
      child.runs++
      break
    }
    case "subagent-end": {
      const child = links.ensure(event.handle, source)
      child.status = event.status
      child.endedAt = at
      child.run = event.usage
      child.tool = undefined
      child.cost = costIn(event) ?? child.cost
      break
    }
    case "turn-start":
      if (source === "main") {
        node.status = "running"
        node.startedAt ??= at
        node.endedAt = undefined
        node.runs++
      } else markWorking(node, at)
      break
    case "turn-end":
      node.tool = undefined
      if (source === "main") {
        node.status = event.status
        node.endedAt = at
      }
      break
    case "tool-call":
      markWorking(node, at)
      if (!SETTLED.has(node.status)) node.tool = { id: event.id, name: event.name, input: oneLine(event.input), since: at }
      break
    case "tool-result":
      if (node.tool?.id === event.id) node.tool = undefined
      break
    case "todo": {
      const current = event.todos.find((t) => t.status === "in_progress")
      node.todo = current === undefined ? undefined : current.activeForm ?? current.content
      break
    }
    case "usage":
      markWorking(node, at)
      if (!SETTLED.has(node.status) || source === "main") node.run = Usage.addUsage(node.run, event.usage)
      node.cost = costIn(event) === undefined ? node.cost : (node.cost ?? 0) + costIn(event)!
      break
    case "step-start":
    case "message":
    case "text-delta":
      markWorking(node, at)
      break
    default:
      return false
  }
  return true
}

/** Takes what a persisted descriptor says of the child `node`. */
const takeDescriptor = (node: MutableNode, d: Records.SubagentDescriptor & { readonly cost?: unknown }) => {
  node.agent = d.agent
  node.provider = d.provider
  node.depth = d.depth
  if (d.description !== "") node.description = d.description
  const at = (iso: string | undefined) => (iso === undefined ? undefined : Date.parse(iso))
  // The record of a run that ended is what happened; a live one may be behind the events.
  if (SETTLED.has(d.status as AgentStatus)) {
    node.status = d.status as AgentStatus
    node.tool = undefined
    node.endedAt = at(d.endedAt) ?? node.endedAt ?? at(d.updatedAt)
    // Its usage is its latest run's: earlier runs are what the events summed before it.
    if (node.runs <= 1) {
      node.prior = Usage.emptyUsage
      node.run = d.usage
    } else node.run = d.usage
  } else if (node.status === "queued" || SETTLED.has(node.status)) {
    node.status = d.status as AgentStatus
    node.endedAt = undefined
  }
  node.queuedAt = at(d.queuedAt) ?? node.queuedAt ?? at(d.createdAt)
  node.startedAt = at(d.startedAt) ?? node.startedAt
  node.runs = Math.max(node.runs, 1)
  node.archived = d.archivedAt !== undefined
  node.cost = costIn(d) ?? node.cost
}

const freeze = (n: MutableNode): AgentNode => ({
  handle: n.handle,
  agent: n.agent,
  provider: n.provider,
  parent: n.parent,
  depth: n.depth,
  description: n.description,
  status: n.status,
  queuedAt: n.queuedAt,
  startedAt: n.startedAt,
  endedAt: n.endedAt,
  usage: Usage.addUsage(n.prior, n.run),
  cost: n.cost,
  tool: n.tool,
  todo: n.todo,
  runs: n.runs,
  archived: n.archived,
  children: [...n.children]
})

type TreeMain = { readonly agent?: string | undefined; readonly model?: string | undefined }

/**
 * A new tree whose main agent is `main` (its type, and its model where a backend would be).
 */
export const make = (main: TreeMain = {}): AgentTree => {
  let version = 0
  const nodes = new Map<string, MutableNode>()
  const blank = (handle: string, parent: string | undefined): MutableNode =>
    blankNode(main, handle, parent === undefined ? 0 : (nodes.get(parent)?.depth ?? 0) + 1, parent)
  const root = blank("main", undefined)
  nodes.set("main", root)

  const attach = (node: MutableNode, parent: string) => {
    if (node.parent === parent && nodes.get(parent)?.children.includes(node.handle)) return
    if (node.parent !== undefined) {
      const old = nodes.get(node.parent)
      if (old !== undefined) old.children = old.children.filter((h) => h !== node.handle)
    }
    const up = nodes.get(parent) ?? ensure(parent, "main")
    node.parent = parent
    node.depth = up.depth + 1
    up.children.push(node.handle)
  }

  /** The node of `handle`, created under `parent` when it is new. */
  function ensure(handle: string, parent: string): MutableNode {
    const known = nodes.get(handle)
    if (known !== undefined) return known
    const made = blank(handle, undefined)
    nodes.set(handle, made)
    if (handle !== "main") attach(made, parent)
    return made
  }

  const apply = (source: string, event: Events.AgentEvent, at: number) => {
    if (applyEvent({ ensure, attach }, ensure(source, "main"), source, event, at)) version++
  }

  const noteDescriptor = (d: Records.SubagentDescriptor & { readonly cost?: unknown }) => {
    const node = ensure(d.handle, d.parent)
    attach(node, d.parent)
    takeDescriptor(node, d)
    version++
  }

  return {
    get main() {
      return freeze(root)
    },
    get: (handle) => {
      const n = nodes.get(handle)
      return n === undefined ? undefined : freeze(n)
    },
    nodes: () => {
      const out: Array<AgentNode> = []
      const seen = new Set<string>()
      const visit = (handle: string) => {
        const n = nodes.get(handle)
        if (n === undefined || seen.has(handle)) return
        seen.add(handle)
        out.push(freeze(n))
        for (const c of n.children) visit(c)
      }
      visit("main")
      return out
    },
    apply,
    noteDescriptor,
    version: () => version
  }
}
