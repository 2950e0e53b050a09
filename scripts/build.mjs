#!/usr/bin/env node
// Builds the JavaScript of every package (or the ones named) with tsup, in one process;
// `tsc -b` emits the .d.ts files next to it. A package whose outputs are newer than all of its
// sources is skipped, so a second build takes well under a second.
//
// Library packages are built on their own: their dependencies, peer dependencies and `@dsh/*`
// siblings stay imports (one copy of each in an installing app), and the output is plain ESM.
// Only a package marked `"dsh": {"bundle": true}` (the CLI) is bundled whole, for start-up speed.
import { cpSync, existsSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs"
import { builtinModules } from "node:module"
import { dirname, join, resolve } from "node:path"
import { build } from "tsup"
import { directNamespaces } from "./direct-namespaces.mjs"
import { firstCycle } from "./module-cycles.mjs"
import { describeViolation, violationsIn } from "./module-size.mjs"

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

/** The newest source file of any package: what a whole bundle is built from. */
const newestSources = () =>
  Math.max(...readdirSync(join(ROOT, "packages")).map((p) => {
    const src = join(ROOT, "packages", p, "src")
    return existsSync(src) ? Math.max(newest(src), statSync(join(ROOT, "packages", p, "package.json")).mtimeMs) : 0
  }))

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")
const BUILTINS = new Set(builtinModules)
const TEST_RUNNERS = new Set(["vitest", "@effect/vitest", "jest", "@jest/globals", "bun:test"])

/** Bare specifiers a built file imports (static, dynamic and re-exports). */
const bareImports = (code) => {
  const found = new Set()
  for (const m of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["']([^"']+)["']/g)) {
    const spec = m[1]
    if (!spec.startsWith(".") && !spec.startsWith("/")) found.add(spec)
  }
  return found
}
const packageOf = (spec) => (spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0])

/**
 * zod keeps every message locale (~65 modules, 250 KB of the CLI's 450 KB of zod) reachable
 * through its `locales` namespace, which the ACP SDK's `import { z }` retains. The CLI only
 * ever uses English, zod's default, so its bundle gets a `locales` of English alone: less for
 * every start to read and compile. Libraries are not bundled and keep zod whole.
 */
const zodEnglishOnly = {
  name: "zod-english-only",
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/](core|classic)$/.test(args.resolveDir)
        ? { path: join(args.resolveDir, "../locales/en.js"), namespace: "zod-locales" }
        : undefined)
    build.onLoad({ filter: /.*/, namespace: "zod-locales" }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)}`,
      loader: "js",
      resolveDir: dirname(args.path)
    }))
  }
}

for (const dir of dirs) {
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))
  // No two modules of a library import each other, even through others (the CLI is wiring).
  const cycle = pkg.dsh?.bundle === true ? undefined : firstCycle(dir)
  if (cycle !== undefined) {
    process.stderr.write(`[build] ${pkg.name}: its modules import each other: ${cycle.join(" → ")}\n`)
    process.exit(1)
  }
  // Nor a module a newcomer must read whole: no source file over 350 lines, no function over 120.
  const oversized = pkg.dsh?.bundle === true ? [] : violationsIn([dir])
  if (oversized.length > 0) {
    for (const v of oversized) process.stderr.write(`[build] ${pkg.name}: ${describeViolation(v)}\n`)
    process.exit(1)
  }
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
  // Files a package ships from elsewhere in the repository (the CLI's built-in agent files).
  for (const [from, to] of Object.entries(pkg.dsh?.assets ?? {})) {
    rmSync(join(dir, to), { recursive: true, force: true })
    cpSync(join(dir, from), join(dir, to), { recursive: true })
  }
  const stale = outputs.some((o) => !existsSync(o) || statSync(o).mtimeMs < inputsChanged) ||
    (bundled && outputs.some((o) => statSync(o).mtimeMs < newestSources()))
  if (!stale) continue
  const allowed = new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})])
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
    // The version every package announces itself with (ACP, the SDK handshake, `dsh --version`).
    define: { __DSH_VERSION__: JSON.stringify(pkg.version) },
    // The CLI is bundled whole (our packages from source, and their dependencies) so that it
    // starts fast: one file, no module resolution at start-up. CommonJS dependencies get a
    // real `require` through the banner. Libraries keep every dependency an import.
    noExternal: bundled ? [/.*/] : [],
    external: bundled ? [] : [...allowed].map((name) => new RegExp(`^${escape(name)}(/|$)`)),
    banner: bundled
      ? { js: "import { createRequire as __dshCreateRequire } from \"node:module\";\nconst require = __dshCreateRequire(import.meta.url);" }
      : {},
    esbuildOptions: (options) => {
      options.conditions = ["@dsh/source"]
    },
    esbuildPlugins: bundled ? [zodEnglishOnly, directNamespaces(join(ROOT, "packages"))] : []
  })
  if (bundled) {
    // Old code-split chunks would pile up next to the new ones; removed only after the new
    // bundle is in place, so a running `./dsh` never finds its entry missing.
    for (const f of readdirSync(join(dir, "dist"), { withFileTypes: true })) {
      const path = join(dir, "dist", f.name)
      if (f.isFile() && /\.js(\.map)?$/.test(f.name) && statSync(path).mtimeMs < buildStart - 1) rmSync(path)
    }
  } else {
    // A library must import only what its manifest declares: anything else would have been
    // inlined (a second copy of it in every app) or would fail to resolve once installed.
    // Only a `conformance` entry may import a test runner: `testing` and the rest must load
    // in an app on node:test, Jest or Bun.
    for (const [name, out] of Object.keys(entry).map((n, i) => [n, outputs[i]])) {
      for (const spec of bareImports(readFileSync(out, "utf8"))) {
        if (name !== "conformance" && TEST_RUNNERS.has(packageOf(spec))) {
          process.stderr.write(`[build] ${pkg.name}: ${out} imports "${spec}"; only the conformance entry may need a test runner\n`)
          process.exit(1)
        }
        if (spec.startsWith("node:") || BUILTINS.has(spec) || allowed.has(packageOf(spec))) continue
        process.stderr.write(`[build] ${pkg.name}: ${out} imports "${spec}", which is not a dependency or peer dependency\n`)
        process.exit(1)
      }
    }
  }
  process.stderr.write(`[build] ${pkg.name}\n`)
}
