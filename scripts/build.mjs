#!/usr/bin/env node
// Builds ESM JavaScript for every package (or the ones named) with tsup, in one process.
// `tsc -b` emits the .d.ts files; this only writes dist/*.js. A package whose outputs are
// newer than all of its sources is skipped, so a second build takes well under a second.
import { existsSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs"
import { join, resolve } from "node:path"
import { build } from "tsup"

const ROOT = resolve(import.meta.dirname, "..")
const dirs = process.argv.slice(2).length > 0
  ? process.argv.slice(2).map((d) => resolve(d))
  : readdirSync(join(ROOT, "packages")).map((d) => join(ROOT, "packages", d)).filter((d) => existsSync(join(d, "package.json")))

const newest = (dir) => {
  let t = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name)
    t = Math.max(t, entry.isDirectory() ? newest(p) : statSync(p).mtimeMs)
  }
  return t
}

/** The newest source file of any package: what a bundle is built from. */
const newestSources = () =>
  Math.max(...readdirSync(join(ROOT, "packages")).map((p) => {
    const src = join(ROOT, "packages", p, "src")
    return existsSync(src) ? Math.max(newest(src), statSync(join(ROOT, "packages", p, "package.json")).mtimeMs) : 0
  }))

for (const dir of dirs) {
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))
  const entry = {}
  for (const [key, target] of Object.entries(pkg.exports ?? {})) {
    const source = target?.["@dsh/source"]
    if (typeof source !== "string") continue
    const name = key === "." ? "index" : key.slice(2)
    entry[name] = join(dir, source)
  }
  for (const [name, file] of Object.entries(pkg.dsh?.entries ?? {})) entry[name] = join(dir, file)
  if (Object.keys(entry).length === 0) continue
  const outputs = Object.keys(entry).map((name) => join(dir, "dist", `${name}.js`))
  const inputsChanged = Math.max(newest(join(dir, "src")), statSync(join(dir, "package.json")).mtimeMs)
  const bundled = pkg.dsh?.bundle === true
  const stale = outputs.some((o) => !existsSync(o) || statSync(o).mtimeMs < inputsChanged) ||
    (bundled && outputs.some((o) => statSync(o).mtimeMs < newestSources()))
  if (!stale) continue
  const buildStart = Date.now()
  await build({
    entry,
    outDir: join(dir, "dist"),
    format: ["esm"],
    platform: "node",
    target: "node22",
    sourcemap: true,
    dts: false,
    clean: false,
    silent: true,
    splitting: bundled,
    minify: bundled && process.env.DSH_BUILD_NO_MINIFY !== "1",
    // The CLI is bundled whole (our packages from source, and their dependencies) so that it
    // starts fast: one file, no module resolution at start-up. CommonJS dependencies get a
    // real `require` through the banner.
    noExternal: bundled ? [/.*/] : [],
    banner: bundled
      ? { js: "import { createRequire as __dshCreateRequire } from \"node:module\";\nconst require = __dshCreateRequire(import.meta.url);" }
      : {},
    esbuildOptions: (options) => {
      options.conditions = ["@dsh/source"]
    }
  })
  if (bundled) {
    // Old code-split chunks would pile up next to the new ones; removed only after the new
    // bundle is in place, so a running `./dsh` never finds its entry missing.
    for (const f of readdirSync(join(dir, "dist"), { withFileTypes: true })) {
      const path = join(dir, "dist", f.name)
      if (f.isFile() && /\.js(\.map)?$/.test(f.name) && statSync(path).mtimeMs < buildStart - 1) rmSync(path)
    }
  }
  process.stderr.write(`[build] ${pkg.name}\n`)
}
