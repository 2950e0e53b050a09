import { Events } from "@dsh/core"
import type { SessionStore } from "@dsh/session"
import { Deferred, Effect } from "effect"
import { defaultLimits } from "../Limits.ts"

/**
 * How much of a long result a record that repeats it keeps: a child's `turn-end` (its last
 * message, stored just before, holds the whole text) and the parent's `subagent-end` (the
 * child's transcript holds it). Each byte of a child's output is then persisted once.
 */
export const RESULT_PREVIEW_BYTES = 32 * 1024

/** The first `RESULT_PREVIEW_BYTES` of `text`, with how much was left out and where it is (`where`). */
export const previewOf = (text: string, where: string): string => {
  if (text.length <= RESULT_PREVIEW_BYTES / 4) return text
  const bytes = Buffer.from(text, "utf8")
  if (bytes.length <= RESULT_PREVIEW_BYTES) return text
  // Cut on a character boundary: a decoder drops a split character's bytes.
  const head = bytes.subarray(0, RESULT_PREVIEW_BYTES).toString("utf8").replace(/\uFFFD$/, "")
  return `${head}\n[… ${bytes.length - Buffer.byteLength(head)} more bytes ${where}]`
}

const sizeOf = (event: Events.AgentEvent): number =>
  event.type === "text-delta" ? Buffer.byteLength(event.text) : Buffer.byteLength(JSON.stringify(event))

/**
 * The per-child output cap (`[limits] max_child_output_bytes`): counts what a child's run
 * records (its transcript) and what the parent holds of it (the text it is streaming), and
 * trips once the sum passes `limit`. From then on the child's events are neither recorded nor
 * forwarded (so nothing more is held), and `tripped` completes: the run stops the child. Every
 * backend's events pass here (its store and its `onEvent` are the gated ones), each counted
 * once even when it is both recorded and forwarded.
 */
export const makeOutputCap = (configured: number, handle: string) =>
  Effect.gen(function*() {
    // Limits built by hand (not normalized) may lack the field: then the default, never a cap of nothing.
    const limit = Number.isFinite(configured) && configured > 0 ? configured : defaultLimits.maxChildOutputBytes
    const tripped = yield* Deferred.make<void>()
    const notes = `the child's output passed the cap of ${limit} bytes ([limits] max_child_output_bytes) and it was stopped; ` +
      "its result is what it said up to the cap"
    const counted = new WeakSet<Events.AgentEvent>()
    let stored = 0
    let streaming = 0
    let over = false
    /** Counts `event` (once), and says whether it is still within the cap. */
    const admit = (event: Events.AgentEvent): boolean => {
      if (over) return false
      if (counted.has(event)) return true
      counted.add(event)
      const size = sizeOf(event)
      if (Events.isEphemeral(event)) streaming += size
      else {
        // The streamed text is now a message (or a new step begins): it is counted as stored.
        if (event.type === "step-start" || event.type === "message") streaming = 0
        stored += size
      }
      if (stored + streaming <= limit) return true
      over = true
      Deferred.doneUnsafe(tripped, Effect.void)
      return false
    }
    const where = () => (over ? "not recorded: the output cap was passed" : `in ${handle}'s transcript`)
    /** The child's store with a gated transcript: the cap, and turn-ends with a preview of their result. */
    const gate = (store: SessionStore.ChildStore): SessionStore.ChildStore => ({
      ...store,
      transcript: {
        ...store.transcript,
        append: (event) => {
          // A turn's end is always recorded (the transcript stays well-formed), without repeating the text.
          if (event.type === "turn-end") {
            // Stopped at the cap, the provider saw a cancellation: the record says how the run ended.
            const ending = over && event.status === "cancelled" ? { status: "failed" as const, error: notes } : {}
            return store.transcript.append({ ...event, ...ending, result: previewOf(event.result, where()) })
          }
          return admit(event) ? store.transcript.append(event) : Effect.void
        }
      }
    })
    return {
      admit,
      gate,
      /** Completes when the cap is passed. */
      tripped: Deferred.await(tripped),
      /** Whether it was passed. */
      isOver: () => over,
      notes
    }
  })

export type OutputCap = Effect.Success<ReturnType<typeof makeOutputCap>>
