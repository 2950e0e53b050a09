#!/usr/bin/env node
// Runs every test project with vitest and ends with the plain line CI reads:
// `N passed, N failed` (and `, N skipped` when some were skipped).
import { spawnSync } from "node:child_process"
import { existsSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

const ROOT = resolve(import.meta.dirname, "..")
const out = join(ROOT, ".vitest-results.json")
rmSync(out, { force: true })
const vitest = join(ROOT, "node_modules", "vitest", "vitest.mjs")
// Each project sets its own timeouts (packages spread `patient` from vitest.shared.ts; the examples
// project, which packs, installs and type-checks, allows more). None is given on the command line:
// a flag there would override every project's own, the examples' included.
const r = spawnSync(process.execPath, [vitest, "run", "--reporter=default", "--reporter=json", `--outputFile.json=${out}`, ...process.argv.slice(2)], {
  cwd: ROOT,
  stdio: "inherit"
})
// The resident dsh processes the tests started are stopped: those of this checkout's build, and
// those of the builds the examples installed in temporary directories. Nothing the run started
// stays behind it.
try {
  const { residentDir } = await import("../packages/cli-resident/src/Place.ts")
  const { residentsIn } = await import("../packages/cli-resident/src/Status.ts")
  const builds = [join(ROOT, "packages", "cli", "dist"), join(tmpdir(), "dsh-example-")]
  for (const r of await residentsIn(residentDir(process.getuid?.() ?? 0))) {
    if (builds.some((b) => r.build.startsWith(b))) process.kill(r.pid, "SIGTERM")
  }
} catch (error) {
  console.log(`[test] could not stop the resident dsh processes: ${error instanceof Error ? error.message : String(error)}`)
}
let passed = 0
let failed = 0
let skipped = 0
if (existsSync(out)) {
  const report = JSON.parse(readFileSync(out, "utf8"))
  passed = report.numPassedTests ?? 0
  // A file that fails to load has no failed assertions of its own; count it once.
  const brokenFiles = (report.testResults ?? []).filter((s) =>
    s.status === "failed" && !(s.assertionResults ?? []).some((a) => a.status === "failed")).length
  failed = (report.numFailedTests ?? 0) + brokenFiles
  skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0)
} else {
  failed = 1
}
if (r.status !== 0 && failed === 0) failed = 1
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`)
process.exit(failed > 0 || r.status !== 0 ? 1 : 0)
