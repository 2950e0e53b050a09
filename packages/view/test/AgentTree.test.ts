import { type Events, Usage } from "@dsh/core"
import { describe, expect, it } from "vitest"
import { AgentTree, TreeText } from "../src/index.ts"

/** The live stream of a run as `AgentHost.prompt` gives it: (source, event) at a time. */
const feed = (tree: ReturnType<typeof AgentTree.make>, steps: ReadonlyArray<readonly [number, string, Events.AgentEvent]>) => {
  for (const [at, source, event] of steps) tree.apply(source, event, at)
}

const start = (handle: string, agent = "explore"): Events.AgentEvent => ({ type: "subagent-start", handle, agent, provider: "spawn", runId: `r-${handle}`, background: false, description: `task of ${handle}` })
const end = (handle: string, status: "completed" | "failed", tokens: number): Events.AgentEvent => ({ type: "subagent-end", handle, runId: `r-${handle}`, status, usage: Usage.make(tokens, 0), durationMs: 1, result: "" })

describe("the agent tree", () => {
  it("follows children from queued to running to their end, nested under their parents, with the tool each runs", () => {
    const tree = AgentTree.make({ agent: "lead", model: "scripted" })
    feed(tree, [
      [0, "main", { type: "turn-start", turn: 1, prompt: "go" }],
      [10, "main", start("explore-1")],
      [10, "main", start("coder-1", "coder")],
      [20, "explore-1", { type: "turn-start", turn: 1, prompt: "task" }],
      [25, "explore-1", { type: "tool-call", id: "c1", name: "Read", input: "{\"path\":\n\"a.ts\"}" }],
      [30, "explore-1", start("explore-2")],
      [31, "explore-1", { type: "usage", model: "m", usage: Usage.make(100, 20) }]
    ])
    expect(tree.get("explore-1")).toMatchObject({ status: "running", startedAt: 20, parent: "main", depth: 1, tool: { name: "Read", input: "{\"path\": \"a.ts\"}" } })
    expect(tree.get("coder-1")).toMatchObject({ status: "queued", queuedAt: 10, agent: "coder", provider: "spawn" })
    expect(tree.get("explore-2")).toMatchObject({ status: "queued", parent: "explore-1", depth: 2 })
    expect(tree.get("explore-1")?.usage.totalTokens).toBe(120)
    expect(tree.nodes().map((n) => n.handle)).toEqual(["main", "explore-1", "explore-2", "coder-1"])

    const lines = TreeText.renderTreeLines(tree, { now: 1_000, width: 100 })
    expect(lines[0]).toMatch(/^main \(lead · scripted\)\s+running\s+1s/)
    expect(lines[1]).toMatch(/^├─ explore-1 \(explore · spawn\)\s+running\s+980ms\s+120 tok\s+→ Read \{"path": "a.ts"\}$/)
    expect(lines[2]).toMatch(/^│  └─ explore-2 \(explore · spawn\)\s+queued/)
    expect(lines[3]).toMatch(/^└─ coder-1 \(coder · spawn\)\s+queued/)
    for (const line of TreeText.renderTreeLines(tree, { now: 1_000, width: 30 })) expect([...line].length).toBeLessThanOrEqual(30)

    feed(tree, [
      [40, "explore-1", { type: "tool-result", id: "c1", name: "Read", output: "x", isError: false, durationMs: 1 }],
      [50, "explore-1", end("explore-2", "completed", 7)],
      [60, "main", end("explore-1", "completed", 300)],
      [70, "main", end("coder-1", "failed", 0)],
      [80, "main", { type: "usage", model: "m", usage: Usage.make(50, 5) }],
      [90, "main", { type: "turn-end", turn: 1, status: "completed", result: "ok", usage: Usage.make(50, 5), durationMs: 90 }]
    ])
    expect(tree.get("explore-1")).toMatchObject({ status: "completed", endedAt: 60, tool: undefined })
    expect(tree.get("explore-1")?.usage.totalTokens).toBe(300)
    expect(tree.get("coder-1")?.status).toBe("failed")
    expect(TreeText.treeRows(tree, 100).map((r) => r.status)).toEqual(["completed", "completed", "completed", "failed"])
    expect(TreeText.treeSummary(tree, 100)).toBe("4 agents: 3 completed, 1 failed · 362 tokens · 90ms")
  })

  it("sums a continued child's runs and ignores output that arrives after its end", () => {
    const tree = AgentTree.make()
    feed(tree, [
      [0, "main", start("explore-1")],
      [5, "main", end("explore-1", "completed", 10)],
      [6, "explore-1", { type: "usage", model: "m", usage: Usage.make(999, 0) }],
      [10, "main", start("explore-1")],
      [12, "explore-1", { type: "usage", model: "m", usage: Usage.make(4, 0) }]
    ])
    expect(tree.get("explore-1")).toMatchObject({ status: "running", runs: 2 })
    expect(tree.get("explore-1")?.usage.totalTokens).toBe(14)
  })

  it("takes a persisted descriptor as what happened: status, type, archive, cost", () => {
    const tree = AgentTree.make()
    tree.noteDescriptor({
      handle: "plan-1", agent: "plan", provider: "fork", parent: "main", depth: 1, status: "timeout", description: "plan it",
      runId: "r1", createdAt: "2026-11-30T10:00:00.000Z", updatedAt: "2026-11-30T10:05:00.000Z", queuedAt: "2026-11-30T10:00:00.000Z",
      startedAt: "2026-11-30T10:00:01.000Z", endedAt: "2026-11-30T10:05:00.000Z", usage: Usage.make(3, 4), archivedAt: "2026-11-30T11:05:00.000Z", cost: 0.25
    })
    expect(tree.get("plan-1")).toMatchObject({ status: "timeout", agent: "plan", provider: "fork", archived: true, cost: 0.25 })
    const row = TreeText.treeRows(tree, Date.parse("2026-11-30T12:00:00.000Z"))[1]
    expect(row).toMatchObject({ name: "plan-1 (plan · fork) [archived]", elapsed: "4m59s", cost: "$0.2500" })
    expect(TreeText.treeSummary(tree, 0)).toContain("$0.2500")
  })
})
