/**
 * The open descriptors of a store's transcripts, held to a budget. A transcript keeps its file
 * open between appends (an open per event costs more than the write), but a session with
 * thousands of children would then hold thousands, and past the process's open-file limit every
 * open fails (`EMFILE`): events and `meta.json` writes are lost. So a store keeps at most `limit`
 * transcripts open; opening one more closes the least recently used idle one (a sync in flight
 * is not idle), and the next append to that one opens its file again. Syncs take turns for the
 * same reason: a thousand children ending their turns at once would otherwise each hold a
 * descriptor while their fdatasyncs wait for the thread pool's four threads. The turns are many
 * (a quarter of the budget): a sync queued in the pool starts as soon as a thread is free, while
 * one waiting here waits for the event loop too, which a busy host makes late.
 */
import { readFileSync } from "node:fs"

/** An open descriptor the budget may ask back. */
export interface Holder {
  /** Closes the descriptor unless it is in use (a sync in flight); says whether it is closed. */
  readonly release: () => boolean
}

export interface DescriptorBudget {
  /**
   * `holder` opened or used its descriptor: it is now the most recently used (may close others).
   * False when it may not keep a newly opened one: every other open one is busy syncing, so the
   * budget is full; the caller closes it after its call.
   */
  readonly touch: (holder: Holder) => boolean
  /** `holder` closed its descriptor itself. */
  readonly forget: (holder: Holder) => void
  /** After `EMFILE`: closes half of the idle descriptors, so that a retried open can succeed. */
  readonly shed: () => void
  /** Runs `task` (a sync) when fewer than a quarter of `limit` others run: until then its holder is idle. */
  readonly syncTurn: <A>(task: () => Promise<A>) => Promise<A>
}

/** The process's soft limit on open files (Linux: `/proc/self/limits`), if it can be read. */
const openFileLimit = (): number | undefined => {
  try {
    const line = readFileSync("/proc/self/limits", "utf8").split("\n").find((l) => l.startsWith("Max open files"))
    const soft = Number(line?.slice("Max open files".length).trim().split(/\s+/)[0])
    return Number.isFinite(soft) && soft > 0 ? soft : undefined
  } catch {
    return undefined
  }
}

/** Half the open-file limit (the rest is for sockets, temp files, the host's own): 512 where unknown. */
export const defaultLimit = (): number => Math.max(16, Math.floor((openFileLimit() ?? 1024) / 2))

/** A budget of `limit` open descriptors; `limit` is asked for when the first one opens. */
export const makeDescriptorBudget = (limit: () => number): DescriptorBudget => {
  // Insertion order is recency: a use moves the holder to the end.
  const open = new Set<Holder>()
  let max: number | undefined
  let maxSyncs: number | undefined
  const closeIdle = (keep: number, except?: Holder) => {
    for (const holder of open) {
      if (open.size <= keep) return
      if (holder !== except && holder.release()) open.delete(holder)
    }
  }
  let running = 0
  const waiting: Array<() => void> = []
  const syncTurn = async <A>(task: () => Promise<A>): Promise<A> => {
    max ??= limit()
    maxSyncs ??= Math.max(1, Math.floor(max / 4))
    if (running >= maxSyncs) await new Promise<void>((resolve) => waiting.push(resolve))
    else running++
    try {
      return await task()
    } finally {
      // Descriptors kept busy by syncs past the budget are idle now.
      if (open.size > max) closeIdle(max)
      // The turn passes straight to the next waiter (it counts as running already).
      const next = waiting.shift()
      if (next === undefined) running--
      else next()
    }
  }
  return {
    touch: (holder) => {
      if (open.delete(holder)) {
        open.add(holder)
        return true
      }
      open.add(holder)
      max ??= limit()
      if (open.size > max) closeIdle(max, holder)
      if (open.size <= max) return true
      open.delete(holder)
      return false
    },
    forget: (holder) => void open.delete(holder),
    shed: () => closeIdle(Math.floor(open.size / 2)),
    syncTurn
  }
}
