// The packages as a harness author installs them: the unpacked size of a minimal harness
// install (@dsh files, source maps included) and the cold import time of @dsh/agent +
// @dsh/subagent in that app, against `node -e 0` measured in the same run.
import { spawnSync } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { closure, MINIMAL_HARNESS, must, packWorkspace, treeBytes } from "../test/support.ts"

const RUNS = 21

const median = (xs: ReadonlyArray<number>): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN

const tarballs = packWorkspace()
const app = mkdtempSync(join(tmpdir(), "dsh-bench-app-"))
const dependencies = Object.fromEntries([...closure(MINIMAL_HARNESS)].map((name) => [name, `file:${tarballs.get(name)}`]))
writeFileSync(join(app, "package.json"), JSON.stringify({ name: "bench-app", private: true, type: "module", dependencies: { ...dependencies, effect: "4.1.0" } }))
must("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], app)

const bytes = MINIMAL_HARNESS.reduce((n, name) => n + treeBytes(join(app, "node_modules", name)), 0)
const mib = bytes / 1024 / 1024
console.log(`minimal harness install (${MINIMAL_HARNESS.length} packages): ${mib.toFixed(2)} MiB of @dsh files (target < 5 MiB)`)

const time = (args: ReadonlyArray<string>): number => {
  const start = performance.now()
  const r = spawnSync(process.execPath, [...args], { cwd: app, stdio: "ignore" })
  if (r.status !== 0) throw new Error(`node ${args.join(" ")} exited ${r.status}`)
  return performance.now() - start
}
const baseline: Array<number> = []
const effectOnly: Array<number> = []
const imports: Array<number> = []
for (let i = 0; i < RUNS; i++) {
  baseline.push(time(["-e", "0"]))
  // What any Effect app pays anyway: effect's own entry point.
  effectOnly.push(time(["--input-type=module", "-e", "await import('effect')"]))
  imports.push(time(["--input-type=module", "-e", "await import('@dsh/agent'); await import('@dsh/subagent')"]))
}
const b = median(baseline)
const e = median(effectOnly)
const m = median(imports)
console.log(`cold import of @dsh/agent + @dsh/subagent: median ${m.toFixed(1)} ms; node -e 0: median ${b.toFixed(1)} ms; ratio ${(m / b).toFixed(2)}x, ${RUNS} runs`)
console.log(`  of which effect itself (import "effect" alone): median ${e.toFixed(1)} ms (${(e / b).toFixed(2)}x); dsh's own share ${(m - e).toFixed(1)} ms`)
console.log(JSON.stringify({ bench: "published-install", minimalHarnessMiB: Number(mib.toFixed(2)), targetMiB: 5 }))
console.log(JSON.stringify({ bench: "published-cold-import", runs: RUNS, medianMs: Number(m.toFixed(1)), nodeBaselineMs: Number(b.toFixed(1)), effectOnlyMs: Number(e.toFixed(1)), ratio: Number((m / b).toFixed(2)) }))
