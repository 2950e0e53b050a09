import { Context } from "effect"

/**
 * When a session tree moves settled children's transcripts into the session's archive
 * (`[subagents] archive_after_minutes` in dsh's config). The session's owner does it on a
 * Clock-driven schedule while it runs the tree; `pruneSessions` catches up on sessions nobody runs.
 */
export interface SubagentArchivingShape {
  /** Minutes after a child's run ended (its outcome announced) before it is archived; 0 = never. */
  readonly afterMinutes: number
}

/** Archive after an hour (OpenClaw's `archiveAfterMinutes` default). */
export const defaultArchiving: SubagentArchivingShape = { afterMinutes: 60 }

/** The archiving of the trees built in this context; the default unless a layer provides another. */
export const SubagentArchiving = Context.Reference<SubagentArchivingShape>("@dsh/subagent/SubagentArchiving", {
  defaultValue: () => defaultArchiving
})
