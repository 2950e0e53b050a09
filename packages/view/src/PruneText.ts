import type { SessionMaintenance } from "@dsh/subagent"

/** Sizes for people, in binary units: `512 B`, `3.4 KiB`, `12.0 MiB`. */
export const formatBytes = (n: number): string => {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"]
  let value = n
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return unit === 0 ? `${n} B` : `${value.toFixed(1)} ${units[unit]}`
}

/**
 * What `dsh sessions prune` prints: a line per session deleted, child archived, worktree removed
 * or kept and session skipped (`would …` on a dry run), then one line of totals.
 */
export const pruneSummaryLines = (s: SessionMaintenance.PruneSummary): ReadonlyArray<string> => {
  const verb = s.dryRun ? "would free" : "freed"
  const sessionBytes = s.sessions.reduce((n, x) => n + x.bytes, 0)
  const before = s.children.reduce((n, c) => n + c.bytes, 0)
  const after = s.children.reduce((n, c) => n + c.archivedBytes, 0)
  return [
    ...s.sessions.map((x) => `${s.dryRun ? "would delete" : "deleted"} session ${x.id} (last updated ${x.updatedAt}, ${formatBytes(x.bytes)})`),
    ...s.children.map((c) => `${s.dryRun ? "would archive" : "archived"} ${c.session} ${c.name} (${formatBytes(c.bytes)} → ${formatBytes(c.archivedBytes)})`),
    ...s.worktrees.map((w) =>
      w.removed ? `removed worktree ${w.path} (branch ${w.branch}) of session ${w.session}` : `${s.dryRun ? "would remove" : "kept"} worktree ${w.path} (branch ${w.branch}) of session ${w.session}${s.dryRun ? "" : `: ${w.reason ?? ""}`}`
    ),
    ...s.skipped.map((x) => `skipped session ${x.id}: ${x.reason}`),
    `${s.sessions.length} session${s.sessions.length === 1 ? "" : "s"} (${formatBytes(sessionBytes)}), ` +
    `${s.children.length} child${s.children.length === 1 ? "" : "ren"} archived (${formatBytes(before)} → ${formatBytes(after)}): ${verb} ${formatBytes(s.freedBytes)}` +
    (s.skipped.length === 0 ? "" : `; ${s.skipped.length} skipped`)
  ]
}
