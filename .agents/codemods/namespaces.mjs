// One module convention (issue #28 item 2), as a re-runnable codemod.
//
//   node /work/wt/codemod/namespaces.mjs <repo root> [--dry]
//
// 1. Every index-like public entry of a package (its `.` entry, and subpath entries made only of
//    re-exports) re-exports each public module as `export * as <Module> from "./<Module>.ts"`.
// 2. Every importer of `@dsh/<pkg>[/<sub>]` (packages' src/test/bench, examples/, scripts/, and
//    ```ts blocks of Markdown files) imports the module namespace and uses `<Module>.<name>`.
// Idempotent: a second run changes nothing. Prints what it could not handle and exits 1 then.
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { basename, dirname, join, relative, resolve } from "node:path"

const ROOT = resolve(process.argv[2] ?? ".")
const DRY = process.argv.includes("--dry")
const require = createRequire(join(ROOT, "package.json"))
const ts = require(join(ROOT, "node_modules/.pnpm/@ts-morph+common@0.28.1/node_modules/@ts-morph/common")).ts

/** Names kept flat beside the namespaces (the library's front doors, like Effect's `pipe`). */
const FLAT_KEEP = { "@dsh/kit": ["createSubagents"], "@dsh/sdk": ["createSdkClient"] }

/**
 * Uses of dynamically imported modules the rewrite cannot follow, fixed by exact replacement
 * (file, before, after). A fixup whose `before` and `after` are both absent is reported.
 */
const FIXUPS = [
  ["packages/cli/src/Store.ts", "(m) => m.storeLayer(chosen)", "(m) => m.StoreLayer.storeLayer(chosen)"],
  ["packages/kit/src/internal/backends.ts", "acp.makeAcpBackend(", "acp.AcpProvider.makeAcpBackend("],
  ["packages/kit/src/internal/backends.ts", "subprocess.layerLocal()", "subprocess.LocalProcessLauncher.layerLocal()"],
  ["packages/kit/src/internal/model.ts", "Effect.flatMap(({ fromAiSdk }) =>", "Effect.flatMap(({ FromAiSdk: { fromAiSdk } }) =>"],
  ["packages/subagent-acp/test/support.ts", "\nexport { SessionStore }\n", "\n"]
]
/** Dynamic imports whose uses a fixup handles, or that are only loaded ahead (no uses). */
const DYNAMIC_HANDLED = new Set(["packages/cli/src/Store.ts", "packages/kit/src/internal/backends.ts", "packages/kit/src/internal/model.ts", "packages/kit/src/internal/store.ts", "packages/cli/src/resident/spare.ts"])

const problems = []
const changed = []
const problem = (file, node, text) => {
  const sf = node?.getSourceFile?.()
  const line = sf ? sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1 : 0
  problems.push(`${relative(ROOT, file)}:${line}: ${text}`)
}

const read = (f) => readFileSync(f, "utf8")
const parse = (file, text) => ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
const pascal = (s) => s.replace(/(^|[-/])([a-z0-9])/g, (_, __, c) => c.toUpperCase())

// ---------------------------------------------------------------- entries and their modules

const packages = execFileSync("git", ["ls-files", "packages/*/package.json"], { cwd: ROOT, encoding: "utf8" })
  .split("\n").filter(Boolean).map((p) => ({ dir: join(ROOT, dirname(p)), json: JSON.parse(read(join(ROOT, p))) }))

/** An entry's source file from its `exports` value. */
const entrySource = (dir, value) => {
  const target = typeof value === "string" ? value : value?.["@dsh/source"]
  return typeof target === "string" && target.endsWith(".ts") ? join(dir, target) : undefined
}

/** Entries: { spec: "@dsh/x" | "@dsh/x/sub", file, pkg } for `.` and index-like subpaths. */
const entries = []
for (const { dir, json } of packages) {
  for (const [key, value] of Object.entries(json.exports ?? {})) {
    if (key === "./package.json" || key.includes("*")) continue
    const file = entrySource(dir, value)
    if (file === undefined || !existsSync(file)) continue
    const sf = parse(file, read(file))
    const indexLike = sf.statements.every((s) => ts.isExportDeclaration(s) && s.moduleSpecifier !== undefined)
    if (key !== "." && !indexLike) continue
    entries.push({ spec: key === "." ? json.name : `${json.name}/${key.slice(2)}`, file, pkg: json.name })
  }
}

/** The module of a re-export: its namespace name and absolute file. */
const moduleOf = (entryFile, specifier) => {
  const file = resolve(dirname(entryFile), specifier)
  return { file, name: basename(file).replace(/\.ts$/, "") }
}

// A program over every module an entry re-exports, to read what each module exports.
const moduleFiles = new Set()
for (const e of entries) {
  for (const s of parse(e.file, read(e.file)).statements) {
    if (ts.isExportDeclaration(s) && s.moduleSpecifier && s.moduleSpecifier.text.startsWith(".")) {
      moduleFiles.add(moduleOf(e.file, s.moduleSpecifier.text).file)
    }
  }
}
const program = ts.createProgram([...moduleFiles], {
  module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022,
  allowImportingTsExtensions: true, noEmit: true, skipLibCheck: true, customConditions: ["@dsh/source"], types: []
})
const checker = program.getTypeChecker()
const exportsOf = (file) => {
  const sf = program.getSourceFile(file)
  const sym = sf && checker.getSymbolAtLocation(sf)
  return sym ? checker.getExportsOfModule(sym).map((s) => s.name) : []
}

/** For each entry spec: name -> namespace ("" for a name kept flat), namespaces, and the new index text. */
const maps = new Map()
for (const e of entries) {
  const text = read(e.file)
  const sf = parse(e.file, text)
  const byName = new Map() // name -> namespace that exports it
  const nsSelf = new Set() // names that are a namespace in the index as it is
  const namespaces = new Map() // namespace -> relative specifier
  const keepFlat = new Map() // name -> relative specifier
  const flatModules = []
  let firstExport
  for (const s of sf.statements) {
    if (!ts.isExportDeclaration(s) || s.moduleSpecifier === undefined) continue
    firstExport ??= s
    const specifier = s.moduleSpecifier.text
    if (!specifier.startsWith(".")) {
      problem(e.file, s, `re-export from another package (${specifier}): move it into a module`)
      continue
    }
    const mod = moduleOf(e.file, specifier)
    if (specifier.includes("/internal/")) {
      problem(e.file, s, `re-export of an internal module: move it into a public module`)
      continue
    }
    const isNs = s.exportClause !== undefined && ts.isNamespaceExport(s.exportClause)
    const ns = isNs ? s.exportClause.name.text : mod.name
    if (namespaces.has(ns) && namespaces.get(ns) !== specifier) problem(e.file, s, `two modules named ${ns}`)
    namespaces.set(ns, specifier)
    if (isNs) nsSelf.add(ns)
    else flatModules.push([ns, mod.file])
  }
  // What importers meant by a name: the flat module that exported it (even when another module
  // of the package has that name, which becomes a namespace only now).
  for (const [ns, file] of flatModules) for (const name of exportsOf(file)) if (!byName.has(name)) byName.set(name, ns)
  for (const ns of nsSelf) byName.set(ns, ns)
  // Members of modules already namespaced, for importers written against the flat index.
  for (const ns of nsSelf) {
    for (const name of exportsOf(moduleOf(e.file, namespaces.get(ns)).file)) if (!byName.has(name)) byName.set(name, ns)
  }
  for (const name of FLAT_KEEP[e.spec] ?? []) {
    const ns = byName.get(name)
    if (ns !== undefined && ns !== "") keepFlat.set(name, namespaces.get(ns))
  }
  // The new index: its leading comment, then one namespace line per module, then the flat ones.
  const head = firstExport ? text.slice(0, firstExport.getFullStart()).trimEnd() : text.trimEnd()
  const lines = [...namespaces].sort(([a], [b]) => a.localeCompare(b)).map(([ns, sp]) => `export * as ${ns} from "${sp}"`)
  for (const [name, sp] of keepFlat) lines.push(`export { ${name} } from "${sp}"`)
  const next = `${head}${head === "" ? "" : "\n"}${lines.join("\n")}\n`
  maps.set(e.spec, { byName, nsSelf, keepFlat, file: e.file, next, changedIndex: next !== text })
}

// ---------------------------------------------------------------- importers

/** Every local binding name declared in a file (to avoid capture when choosing a namespace name). */
const declaredNames = (sf, skip) => {
  const names = new Set()
  const visit = (node) => {
    if (!skip.has(node) && node.name && ts.isIdentifier(node.name) && (
      ts.isVariableDeclaration(node) || ts.isParameter(node) || ts.isFunctionDeclaration(node) ||
      ts.isClassDeclaration(node) || ts.isBindingElement(node) || ts.isImportSpecifier(node) ||
      ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node) || ts.isEnumDeclaration(node) ||
      ts.isNamespaceImport(node) || ts.isImportClause(node) || ts.isTypeParameterDeclaration(node) ||
      ts.isFunctionExpression(node) || ts.isClassExpression(node)
    )) names.add(node.name.text)
    ts.forEachChild(node, visit)
  }
  visit(sf)
  return names
}

/** Is this identifier a reference to a binding (not a property name, not a declaration)? */
const isReference = (id) => {
  const p = id.parent
  if ((ts.isPropertyAccessExpression(p) && p.name === id) || (ts.isQualifiedName(p) && p.right === id)) return false
  if ((ts.isPropertyAssignment(p) || ts.isPropertySignature(p) || ts.isPropertyDeclaration(p) ||
    ts.isMethodDeclaration(p) || ts.isMethodSignature(p) || ts.isGetAccessor(p) || ts.isSetAccessor(p) ||
    ts.isEnumMember(p) || ts.isPropertyAccessChain?.(p)) && p.name === id) return false
  if (ts.isBindingElement(p) && (p.propertyName === id || p.name === id)) return false
  if (ts.isImportSpecifier(p) || ts.isImportClause(p) || ts.isNamespaceImport(p) || ts.isExportSpecifier(p)) return false
  if ((ts.isVariableDeclaration(p) || ts.isParameter(p) || ts.isFunctionDeclaration(p) || ts.isClassDeclaration(p) ||
    ts.isInterfaceDeclaration(p) || ts.isTypeAliasDeclaration(p) || ts.isTypeParameterDeclaration(p)) && p.name === id) return false
  if (ts.isLabeledStatement(p) || ts.isBreakOrContinueStatement(p)) return false
  return true
}

const dshSpec = (text) => (text.startsWith("@dsh/") ? text : undefined)

/** Rewrites one TypeScript text; returns the new text (or the same). */
const rewrite = (file, text) => {
  const sf = parse(file, text)
  const edits = []
  const locals = new Map() // local name -> "Ns.name"
  const removed = new Set()
  const plans = []
  for (const s of sf.statements) {
    if (ts.isImportDeclaration(s) && dshSpec(s.moduleSpecifier.text) && maps.has(s.moduleSpecifier.text)) plans.push(s)
    else if (ts.isImportDeclaration(s) && dshSpec(s.moduleSpecifier.text) && !maps.has(s.moduleSpecifier.text)) {
      // A subpath that is a module itself (e.g. @dsh/telemetry/file-log): unchanged.
    }
  }
  for (const s of plans) for (const el of s.importClause?.namedBindings?.elements ?? []) removed.add(el)
  const taken = declaredNames(sf, removed)
  const chosen = new Map() // `${spec}:${ns}` -> local namespace name
  const usedLocal = new Set()
  const nsLocal = (spec, ns) => {
    const key = `${spec}:${ns}`
    if (chosen.has(key)) return chosen.get(key)
    let name = ns
    if (taken.has(name) || usedLocal.has(name)) name = `${pascal(spec.slice(5))}${ns}`
    while (taken.has(name) || usedLocal.has(name)) name = `${name}_`
    chosen.set(key, name)
    usedLocal.add(name)
    return name
  }
  const wanted = new Map() // spec -> Map(local namespace -> { ns, value })
  const flatBySpec = new Map() // spec -> flat specifier texts
  const want = (spec, nsName, ns, value) => {
    const m = wanted.get(spec) ?? new Map()
    const w = m.get(nsName) ?? { ns, value: false }
    if (value) w.value = true
    m.set(nsName, w)
    wanted.set(spec, m)
  }
  const allTypeOnly = new Map() // spec -> every import of it is `import type`
  for (const s of plans) {
    const spec = s.moduleSpecifier.text
    const map = maps.get(spec)
    const clause = s.importClause
    if (clause?.name) problem(file, s, `default import from ${spec}`)
    const bindings = clause?.namedBindings
    if (bindings && ts.isNamespaceImport(bindings)) {
      problem(file, s, `namespace import of ${spec}: rewrite its uses by hand`)
      continue
    }
    allTypeOnly.set(spec, (allTypeOnly.get(spec) ?? true) && clause?.isTypeOnly === true)
    for (const el of bindings?.elements ?? []) {
      const orig = (el.propertyName ?? el.name).text
      const local = el.name.text
      const typeOnly = clause.isTypeOnly || el.isTypeOnly
      const ns = map.byName.get(orig)
      if (map.keepFlat.has(orig) || ns === undefined) {
        if (ns === undefined) problem(file, el, `${orig} is not exported by ${spec}`)
        flatBySpec.set(spec, [...(flatBySpec.get(spec) ?? []), clause.isTypeOnly && !el.isTypeOnly ? `type ${el.getText(sf)}` : el.getText(sf)])
        continue
      }
      const nsName = nsLocal(spec, ns)
      want(spec, nsName, ns, !typeOnly)
      if (map.nsSelf.has(orig) && orig === ns && local === nsName) continue // already the namespace
      locals.set(local, `${nsName}.${orig}`)
    }
  }
  // Re-exports from @dsh packages: `export { X } from "@dsh/x"` -> `export const/type X = Ns.X`.
  const exportOut = new Map() // statement -> lines
  for (const s of sf.statements) {
    if (!ts.isExportDeclaration(s) || !s.moduleSpecifier || !maps.has(s.moduleSpecifier.text)) continue
    const spec = s.moduleSpecifier.text
    const map = maps.get(spec)
    if (!s.exportClause || !ts.isNamedExports(s.exportClause)) {
      problem(file, s, `export * from ${spec}`)
      continue
    }
    const out = []
    for (const el of s.exportClause.elements) {
      const orig = (el.propertyName ?? el.name).text
      const ns = map.byName.get(orig)
      if (ns === undefined || (ns === orig && map.nsSelf.has(orig))) {
        if (ns === undefined) problem(file, el, `${orig} is not exported by ${spec}`)
        continue
      }
      const nsName = nsLocal(spec, ns)
      const typeOnly = s.isTypeOnly || el.isTypeOnly
      want(spec, nsName, ns, !typeOnly)
      if (!allTypeOnly.has(spec)) allTypeOnly.set(spec, typeOnly)
      else if (!typeOnly) allTypeOnly.set(spec, false)
      out.push(typeOnly ? `export type ${el.name.text} = ${nsName}.${orig}` : `export const ${el.name.text} = ${nsName}.${orig}`)
    }
    if (out.length > 0) exportOut.set(s, out)
  }
  const importLine = (spec) => {
    const typeOnlyDecl = allTypeOnly.get(spec) === true
    const specs = [...(wanted.get(spec) ?? [])].sort(([x], [y]) => x.localeCompare(y)).map(([name, w]) => {
      const alias = name === w.ns ? name : `${w.ns} as ${name}`
      return typeOnlyDecl || w.value ? alias : `type ${alias}`
    })
    const all = [...specs, ...(flatBySpec.get(spec) ?? [])]
    return all.length === 0 ? "" : `import ${typeOnlyDecl ? "type " : ""}{ ${all.join(", ")} } from "${spec}"`
  }
  const placed = new Set()
  const removeStatement = (s) => {
    let end = s.getEnd()
    if (text[end] === "\n") end++
    edits.push([s.getStart(sf), end, ""])
  }
  for (const s of plans) {
    const spec = s.moduleSpecifier.text
    if (s.importClause?.namedBindings && ts.isNamespaceImport(s.importClause.namedBindings)) continue
    if (placed.has(spec)) {
      removeStatement(s)
      continue
    }
    placed.add(spec)
    const line = importLine(spec)
    if (line === "") removeStatement(s)
    else if (line !== s.getText(sf).replace(/;$/, "")) edits.push([s.getStart(sf), s.getEnd(), line])
  }
  for (const [s, out] of exportOut) {
    const spec = s.moduleSpecifier.text
    const lines = placed.has(spec) ? out : [importLine(spec), ...out]
    placed.add(spec)
    edits.push([s.getStart(sf), s.getEnd(), lines.join("\n")])
  }
  // References to the rewritten locals.
  const visit = (node) => {
    if (ts.isIdentifier(node) && locals.has(node.text) && isReference(node)) {
      const p = node.parent
      if (ts.isShorthandPropertyAssignment(p) && p.name === node) edits.push([node.getStart(sf), node.getEnd(), `${node.text}: ${locals.get(node.text)}`])
      else edits.push([node.getStart(sf), node.getEnd(), locals.get(node.text)])
    }
    if (ts.isIdentifier(node) && locals.has(node.text) && ts.isExportSpecifier(node.parent) && node.parent.parent.parent.moduleSpecifier === undefined && !FIXUPS.some(([f, b]) => f === relative(ROOT, file) && b.includes(`export { ${node.text} }`))) problem(file, node, `local export of an imported name ${node.text}`)
    if (ts.isBindingElement(node) && ts.isIdentifier(node.name) && locals.has(node.name.text) && !removed.has(node)) {
      problem(file, node, `${node.name.text} shadows an import`)
    }
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) dynamicImport(node)
    ts.forEachChild(node, visit)
  }
  const dynamicImport = (call) => {
    const arg = call.arguments[0]
    if (!arg || !ts.isStringLiteral(arg) || !maps.has(arg.text)) return
    const map = maps.get(arg.text)
    // import("@dsh/x").then((m) => m.Name)
    const then = call.parent
    if (ts.isPropertyAccessExpression(then) && then.name.text === "then" && ts.isCallExpression(then.parent)) {
      const fn = then.parent.arguments[0]
      const param = fn && (ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) ? fn.parameters[0]?.name : undefined
      if (param && ts.isIdentifier(param)) {
        const walk = (n) => {
          if (ts.isPropertyAccessExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === param.text) {
            const ns = map.byName.get(n.name.text)
            if (ns !== undefined && !(ns === n.name.text && map.nsSelf.has(ns))) edits.push([n.name.getStart(sf), n.name.getStart(sf), `${ns}.`])
          }
          ts.forEachChild(n, walk)
        }
        walk(fn.body)
        return
      }
    }
    // const { a, b: c } = yield* Effect.promise(() => import("@dsh/x")) / await import(...)
    let up = call.parent
    while (up && !ts.isVariableDeclaration(up) && !ts.isBlock(up) && !ts.isSourceFile(up)) up = up.parent
    if (up && ts.isVariableDeclaration(up) && ts.isObjectBindingPattern(up.name) && up.initializer && up.initializer.getText(sf).replace(/\s/g, "").length < 120) {
      const groups = new Map()
      for (const el of up.name.elements) {
        const orig = (el.propertyName ?? el.name).getText(sf)
        const ns = map.byName.get(orig)
        if (ns === undefined) {
          problem(file, el, `${orig} is not exported by ${arg.text}`)
          return
        }
        if (ns === orig && map.nsSelf.has(orig)) {
          groups.set(`=${orig}`, [el.getText(sf)])
          continue
        }
        groups.set(ns, [...(groups.get(ns) ?? []), el.getText(sf)])
      }
      const parts = [...groups].map(([ns, els]) => (ns.startsWith("=") ? els[0] : `${ns}: { ${els.join(", ")} }`))
      const next = `{ ${parts.join(", ")} }`
      if (next !== up.name.getText(sf)) edits.push([up.name.getStart(sf), up.name.getEnd(), next])
      return
    }
    if (!DYNAMIC_HANDLED.has(relative(ROOT, file))) problem(file, call, `dynamic import of ${arg.text}: rewrite its uses by hand`)
  }
  visit(sf)
  if (edits.length === 0) return text
  edits.sort((a, b) => b[0] - a[0])
  let out = text
  let last = Infinity
  for (const [start, end, repl] of edits) {
    if (end > last) {
      problem(file, undefined, `overlapping edits at ${start}`)
      continue
    }
    out = out.slice(0, start) + repl + out.slice(end)
    last = start
  }
  return out
}

// ---------------------------------------------------------------- run

const write = (file, text) => {
  changed.push(relative(ROOT, file))
  if (!DRY) writeFileSync(file, text)
}
for (const [, m] of maps) if (m.changedIndex) write(m.file, m.next)

const files = execFileSync("git", ["ls-files", "-co", "--exclude-standard", "*.ts", "*.mts", "*.md"], { cwd: ROOT, encoding: "utf8" })
  .split("\n").filter(Boolean)
  .filter((f) => /^(packages\/[^/]+\/(src|test|bench|scripts)\/|examples\/|scripts\/|packages\/[^/]+\/README\.md$|README\.md$)/.test(f))
  .filter((f) => !f.includes("node_modules/") && !f.includes("/dist/"))
for (const rel of files) {
  const file = join(ROOT, rel)
  if (!existsSync(file)) continue
  const text = read(file)
  if (!text.includes("@dsh/") && !FIXUPS.some(([f]) => f === rel)) continue
  let next
  if (rel.endsWith(".md")) {
    next = text.replace(/(```(?:ts|typescript)\n)([\s\S]*?)(```)/g, (all, open, code, close) =>
      code.includes("@dsh/") ? `${open}${rewrite(`${file}.block.ts`, code)}${close}` : all)
  } else next = rewrite(file, text)
  for (const [f, before, after] of FIXUPS) {
    if (f !== rel) continue
    if (next.includes(before)) next = next.replace(before, after)
    else if (!next.includes(after)) problems.push(`${f}: fixup not applicable: ${before}`)
  }
  if (next !== text) write(file, next)
}
console.log(`${changed.length} files changed${DRY ? " (dry run)" : ""}`)
for (const p of problems) console.log(`left: ${p}`)
process.exit(problems.length > 0 ? 1 : 0)
