import type { SubagentDescriptor } from "./Records.ts"

/**
 * What `info` shows of a child (OpenClaw's `/subagents info`): its record, the session it belongs
 * to, the cleanup in effect (`keep` when none was asked for) and when its transcript is archived
 * (`archivedAt` once it is; before that `archiveAt`, from its end and the tree's
 * `archive_after_minutes`, `never` when that is 0; nothing while it still runs).
 */
export const subagentInfo = (child: SubagentDescriptor, sessionId: string, archiveAfterMinutes: number) => {
  const cleanup = child.cleanup ?? "keep"
  const ended = child.endedAt === undefined ? undefined : Date.parse(child.endedAt)
  const archiveAt = child.archivedAt !== undefined || ended === undefined || Number.isNaN(ended)
    ? undefined
    : cleanup === "delete"
    ? child.endedAt
    : archiveAfterMinutes === 0
    ? "never"
    : new Date(ended + archiveAfterMinutes * 60_000).toISOString()
  return { sessionId, ...child, cleanup, ...(archiveAt === undefined ? {} : { archiveAt }) }
}
