#!/usr/bin/env node
// `pnpm bench`: runs every benchmark (packages/*/bench/*.ts, examples/bench/*.ts) one after another, each in its
// own Node process, and prints their lines plus a closing table of the JSON results.
// Benchmarks measure a baseline in the same run and print ratios; nothing here asserts.
import { spawnSync } from "node:child_process"
import { existsSync, readdirSync } from "node:fs"
import { join, relative, resolve } from "node:path"

const ROOT = resolve(import.meta.dirname, "..")
const only = process.argv.slice(2)
const files = []
const benchDirs = [...readdirSync(join(ROOT, "packages")).sort().map((pkg) => join(ROOT, "packages", pkg, "bench")), join(ROOT, "examples", "bench")]
for (const dir of benchDirs) {
  if (!existsSync(dir)) continue
  for (const f of readdirSync(dir).sort()) if (f.endsWith(".ts")) files.push(join(dir, f))
}
const selected = only.length === 0 ? files : files.filter((f) => only.some((o) => f.includes(o)))
const results = []
for (const file of selected) {
  process.stdout.write(`\n# ${relative(ROOT, file)}\n`)
  const r = spawnSync(process.execPath, ["--conditions=@dsh/source", file], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] })
  for (const line of (r.stdout ?? "").split("\n")) {
    if (line.startsWith("{\"bench\"")) results.push(JSON.parse(line))
    else if (line.trim() !== "") process.stdout.write(`${line}\n`)
  }
  if (r.status !== 0) process.stdout.write(`(exited with ${r.status})\n`)
}
process.stdout.write(`\n# summary\n${JSON.stringify(results, null, 2)}\n`)
