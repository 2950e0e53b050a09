#!/usr/bin/env node
// Size limits of library code: no `src/` file over 350 lines and no function over 120 lines, so
// that every module and every function can be read in one sitting. Library packages are all but
// `cli` (the application); tests, benchmarks and examples live outside `src/` and are not counted.
// Functions are found with a real TypeScript parser (every function node: declarations, arrow
// functions, methods, `Effect.gen` bodies), not by counting braces. An application's `src/` (the
// CLI: wiring over the packages, no semantics of its own) has a budget of 1,200 lines in all.
//
//   node scripts/module-size.mjs            report the violations
//   node scripts/module-size.mjs --check    the same, and exit 1 when there is any
//   node scripts/module-size.mjs DIR...     look at these package directories instead
//   node scripts/module-size.mjs --app DIR  and at this application's budget
import { parse } from "@babel/parser"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import { pathToFileURL } from "node:url"

export const MAX_FILE_LINES = 350
export const MAX_FUNCTION_LINES = 120
export const MAX_APPLICATION_LINES = 1200
const ROOT = resolve(import.meta.dirname, "..")
const APPLICATIONS = new Set(["cli"])

const FUNCTION_TYPES = new Set([
  "FunctionDeclaration",
  "FunctionExpression",
  "ArrowFunctionExpression",
  "ObjectMethod",
  "ClassMethod",
  "ClassPrivateMethod",
  "TSDeclareMethod"
])

const sources = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []
  )

/** The lines a file counts: as `wc -l` does, a last line without its newline included. */
const lineCount = (text) => text.length === 0 ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0)

// A readable name for a function node: its own, the variable or property it is bound to, or the
// call it is handed to (`Effect.gen`).
const nameOf = (node, parent) => {
  if (node.id?.name) return node.id.name
  if (node.key) return node.key.name ?? node.key.value ?? "method"
  if (parent?.type === "VariableDeclarator" && parent.id?.name) return parent.id.name
  if ((parent?.type === "ObjectProperty" || parent?.type === "ClassProperty") && parent.key) {
    return parent.key.name ?? parent.key.value ?? "property"
  }
  if (parent?.type === "CallExpression") {
    const callee = parent.callee
    const called = callee.type === "MemberExpression"
      ? `${callee.object.name ?? "…"}.${callee.property.name ?? "…"}`
      : callee.name ?? "…"
    return `${called}(…)`
  }
  return "anonymous"
}

/** Every function in `text` with its first line and its length in lines. */
export const functionsOf = (text, file = "source.ts") => {
  const ast = parse(text, { sourceType: "module", sourceFilename: file, plugins: ["typescript"] })
  const found = []
  const walk = (node, parent) => {
    if (node === null || typeof node !== "object") return
    if (Array.isArray(node)) {
      for (const child of node) walk(child, parent)
      return
    }
    if (typeof node.type !== "string") return
    if (FUNCTION_TYPES.has(node.type) && node.loc) {
      const line = node.loc.start.line
      found.push({ name: nameOf(node, parent), line, lines: node.loc.end.line - line + 1 })
    }
    for (const key of Object.keys(node)) {
      if (key === "loc" || key === "start" || key === "end" || key === "comments" || key.endsWith("Comments")) continue
      walk(node[key], node)
    }
  }
  walk(ast.program, undefined)
  return found
}

/** The violations in one file: `{ file, line, kind, name?, lines }`. */
export const violationsOf = (file, text = readFileSync(file, "utf8")) => {
  const out = []
  const lines = lineCount(text)
  if (lines > MAX_FILE_LINES) out.push({ file, line: 1, kind: "file", lines })
  for (const f of functionsOf(text, file)) {
    if (f.lines > MAX_FUNCTION_LINES) out.push({ file, line: f.line, kind: "function", name: f.name, lines: f.lines })
  }
  return out
}

/** The library package directories of this repository. */
export const libraryPackages = () => {
  const dir = join(ROOT, "packages")
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !APPLICATIONS.has(e.name))
    .map((e) => join(dir, e.name))
}

/** The violations under `src/` of every package directory given. */
export const violationsIn = (packageDirs) =>
  packageDirs.flatMap((dir) => {
    const src = join(dir, "src")
    return existsSync(src) ? sources(src).sort().flatMap((file) => violationsOf(file)) : []
  })

/** An application over its budget: the lines of every file under its `src/`. */
export const applicationViolationsIn = (appDirs) =>
  appDirs.flatMap((dir) => {
    const src = join(dir, "src")
    const lines = existsSync(src) ? sources(src).reduce((n, file) => n + lineCount(readFileSync(file, "utf8")), 0) : 0
    return lines > MAX_APPLICATION_LINES ? [{ file: src, line: 1, kind: "application", lines }] : []
  })

export const describeViolation = (v) =>
  v.kind === "application"
    ? `${relative(process.cwd(), v.file)}: ${v.lines} lines in all (over ${MAX_APPLICATION_LINES} for an application)`
    : v.kind === "file"
    ? `${relative(process.cwd(), v.file)}: ${v.lines} lines (over ${MAX_FILE_LINES})`
    : `${relative(process.cwd(), v.file)}:${v.line}: function ${v.name}: ${v.lines} lines (over ${MAX_FUNCTION_LINES})`

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const args = process.argv.slice(2)
  const check = args.includes("--check")
  const apps = args.flatMap((a, i) => (args[i - 1] === "--app" ? [resolve(a)] : []))
  const dirs = args.filter((a, i) => a !== "--check" && a !== "--app" && args[i - 1] !== "--app").map((a) => resolve(a))
  const given = dirs.length > 0 || apps.length > 0
  const found = [
    ...violationsIn(given ? dirs : libraryPackages()),
    ...applicationViolationsIn(given ? apps : [...APPLICATIONS].map((name) => join(ROOT, "packages", name)))
  ]
  for (const v of found) console.log(describeViolation(v))
  const files = found.filter((v) => v.kind === "file").length
  const budgets = found.filter((v) => v.kind === "application").length
  console.log(
    found.length === 0
      ? "module sizes: no file over 350 lines, no function over 120 lines"
      : `module sizes: ${files} file(s) over ${MAX_FILE_LINES} lines, ${found.length - files - budgets} function(s) over ${MAX_FUNCTION_LINES} lines` +
        (budgets === 0 ? "" : `, ${budgets} application(s) over ${MAX_APPLICATION_LINES} lines`)
  )
  if (check && found.length > 0) process.exit(1)
}
