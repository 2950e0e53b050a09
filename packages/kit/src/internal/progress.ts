import type { ChildEvent, ChildEventName } from "../Results.ts"

/** What a running `subagent` call shows before its result: the child's text so far and the tool it is in. */
export interface SubagentProgress {
  readonly status: "running"
  /** The child's handle, once it started. */
  readonly handle?: string | undefined
  /** Everything the child has written so far. */
  readonly text: string
  /** The tool the child is calling now, if any. */
  readonly tool?: string | undefined
}

type On = (event: ChildEventName, listener: (event: ChildEvent) => void) => () => void

/**
 * Yields `SubagentProgress` snapshots while `result` runs, then the result itself. The call
 * knows its child only by its prompt: the first child whose first turn starts with that prompt,
 * and no other call has claimed, is this call's (`claimed` is per kit). Two concurrent calls with
 * the same prompt may see each other's progress; their results are never mixed up.
 */
export async function* withProgress<A>(on: On, claimed: Set<string>, prompt: string, result: Promise<A>): AsyncGenerator<SubagentProgress | A> {
  let handle: string | undefined
  let text = ""
  let tool: string | undefined
  let changed = false
  let wake: (() => void) | undefined
  const off = on("*", (e) => {
    if (handle === undefined) {
      if (e.type !== "turn-start" || e.turn !== 0 || !e.prompt.startsWith(prompt) || claimed.has(e.handle)) return
      handle = e.handle
      claimed.add(handle)
    } else if (e.handle !== handle) return
    if (e.type === "text-delta") text += e.text
    else if (e.type === "tool-call") tool = e.name
    else if (e.type === "tool-result") tool = undefined
    else if (e.type !== "turn-start") return
    changed = true
    wake?.()
  })
  const snapshot = (): SubagentProgress => ({ status: "running", handle, text, ...(tool === undefined ? {} : { tool }) })
  let settled = false
  let shown = false
  const done = result.finally(() => {
    settled = true
    wake?.()
  })
  // A consumer that stops early never awaits `done`: its failure is not unhandled.
  done.catch(() => undefined)
  try {
    while (!settled) {
      // Deltas that arrive while the consumer is busy fold into one snapshot.
      if (!changed) await new Promise<void>((resolve) => (wake = resolve))
      wake = undefined
      if (settled) break
      changed = false
      shown = true
      yield snapshot()
    }
    const final = await done
    // A child that ran shows up at least once, however fast it was.
    if (!shown && handle !== undefined) yield snapshot()
    yield final
  } finally {
    off()
    if (handle !== undefined) claimed.delete(handle)
  }
}
