/**
 * The announce step (openclaw's sub-agent "通知"): when a background child's run completes, its
 * own session gets one more model turn asking it for the announcement its parent will read.
 * That reply is the announcement's `Result:`; exactly `ANNOUNCE_SKIP` sends nothing (the
 * outcome is still recorded in `tasks/` and listed). One model call, no tools: it is cheap,
 * and a model that answers with a tool call simply leaves the run's own result in place.
 */

/** The reply that suppresses a background child's announcement. */
export const ANNOUNCE_SKIP = "ANNOUNCE_SKIP"

/** What the child is asked, in its own session, after its background run completed. */
export const ANNOUNCE_PROMPT =
  "[announce step] Your task is finished. Write the announcement the agent that started you will read: " +
  "a short, self-contained summary of the result (what you found or changed, and anything it must know). " +
  `If there is nothing worth announcing, reply with exactly ${ANNOUNCE_SKIP}.`

/** Whether an announce step's reply asks for no announcement. */
export const isAnnounceSkip = (reply: string | undefined): boolean => reply?.trim() === ANNOUNCE_SKIP
