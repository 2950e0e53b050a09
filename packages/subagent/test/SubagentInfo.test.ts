import { describe, expect, it } from "vitest"
import { type Records, SubagentInfo } from "../src/index.ts"

const child = (extra: Partial<Records.SubagentDescriptor> = {}): Records.SubagentDescriptor => ({
  handle: "c1",
  agent: "general",
  provider: "spawn",
  parent: "main",
  depth: 1,
  status: "completed",
  description: "d",
  runId: "r1",
  createdAt: "2026-12-02T10:00:00.000Z",
  updatedAt: "2026-12-02T10:05:00.000Z",
  usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
  ...extra
} as Records.SubagentDescriptor)

describe("subagentInfo", () => {
  it("says when a settled child's transcript is archived: its end plus the tree's minutes, `never` at 0, at once for cleanup delete", () => {
    const ended = child({ endedAt: "2026-12-02T10:05:00.000Z" })
    expect(SubagentInfo.subagentInfo(ended, "s1", 60)).toMatchObject({ sessionId: "s1", handle: "c1", cleanup: "keep", archiveAt: "2026-12-02T11:05:00.000Z" })
    expect(SubagentInfo.subagentInfo(ended, "s1", 0).archiveAt).toBe("never")
    expect(SubagentInfo.subagentInfo({ ...ended, cleanup: "delete" }, "s1", 60).archiveAt).toBe("2026-12-02T10:05:00.000Z")
  })

  it("gives no archive time to a child that still runs or was archived already", () => {
    expect(SubagentInfo.subagentInfo(child({ status: "running" }), "s1", 60)).not.toHaveProperty("archiveAt")
    const archived = SubagentInfo.subagentInfo(child({ endedAt: "2026-12-02T10:05:00.000Z", archivedAt: "2026-12-02T11:05:00.000Z" }), "s1", 60)
    expect(archived).not.toHaveProperty("archiveAt")
    expect(archived.archivedAt).toBe("2026-12-02T11:05:00.000Z")
  })
})
