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
  ["packages/kit/src/internal/backends.ts", "subprocess.layerLocal()", "subprocess.LocalProcessLauncher.layer()"],
  ["packages/kit/src/internal/model.ts", "Effect.flatMap(({ fromAiSdk }) =>", "Effect.flatMap(({ FromAiSdk: { fromAiSdk } }) =>"],
  ["packages/subagent-acp/test/support.ts", "\nexport { SessionStore }\n", "\n"],
  ["packages/subagent-acp/test/support.ts", 'import { FileSessionStore, SessionStore } from "@dsh/session"', 'import { FileSessionStore } from "@dsh/session"'],
  // A script written out by the test, as a string the parser does not look into.
  ["examples/test/published.test.ts", 'import { LlmError } from "@dsh/llm"\n      import { makeScriptedModel } from "@dsh/llm-scripted"', 'import { LlmError } from "@dsh/llm"\n      import { ScriptedModel } from "@dsh/llm-scripted"'],
  ["examples/test/published.test.ts", "const model = makeScriptedModel({", "const model = ScriptedModel.make({"],
  ["examples/test/published.test.ts", "console.log(error instanceof LlmError)`", "console.log(error instanceof LlmError.LlmError)`"]
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
const parse = (file, text) =>
  ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith(".mjs") ? ts.ScriptKind.JS : ts.ScriptKind.TS)
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
/** Subpaths that are one module (e.g. `@dsh/telemetry/file-log` → src/FileLog.ts). */
const subpathModule = new Map()
for (const { dir, json } of packages) {
  for (const [key, value] of Object.entries(json.exports ?? {})) {
    if (key === "./package.json" || key.includes("*")) continue
    const file = entrySource(dir, value)
    if (file === undefined || !existsSync(file)) continue
    const sf = parse(file, read(file))
    const indexLike = sf.statements.every((s) => ts.isExportDeclaration(s) && s.moduleSpecifier !== undefined)
    if (key !== "." && !indexLike) {
      subpathModule.set(`${json.name}/${key.slice(2)}`, file)
      continue
    }
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

/** Entry files by absolute path: importers inside a package reach its index as `../src/index.ts`. */
const entryByFile = new Map(entries.map((e) => [e.file, e.spec]))

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
  const head = firstExport ? text.slice(0, firstExport.getStart(sf)).trimEnd() : text.trimEnd()
  const lines = [...namespaces].sort(([a], [b]) => a.localeCompare(b)).map(([ns, sp]) => `export * as ${ns} from "${sp}"`)
  for (const [name, sp] of keepFlat) lines.push(`export { ${name} } from "${sp}"`)
  const next = `${head}${head === "" ? "" : "\n"}${lines.join("\n")}\n`
  maps.set(e.spec, { byName, nsSelf, keepFlat, namespaces, pkg: e.pkg, file: e.file, next, changedIndex: next !== text })
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
  const textOf = new Map() // map key -> the specifier as this file writes it
  const keyOf = (spec) => {
    const key = maps.has(spec) ? spec : spec.startsWith(".") ? entryByFile.get(resolve(dirname(file), spec)) : undefined
    if (key !== undefined && !textOf.has(key)) textOf.set(key, spec)
    return key
  }
  const edits = []
  const locals = new Map() // local name -> "Ns.name"
  const removed = new Set()
  const plans = []
  for (const s of sf.statements) {
    // A subpath that is a module itself (e.g. @dsh/telemetry/file-log) has no map: unchanged.
    if (ts.isImportDeclaration(s) && keyOf(s.moduleSpecifier.text) !== undefined) plans.push(s)
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
  /** `local.name` → `local.Module.name` inside `scope`, for a module object bound to `local`. */
  const memberAccess = (local, map, scope) => {
    const walk = (n) => {
      if (ts.isPropertyAccessExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === local) {
        const ns = map.byName.get(n.name.text)
        if (ns !== undefined && !(ns === n.name.text && map.nsSelf.has(ns))) edits.push([n.name.getStart(sf), n.name.getStart(sf), `${ns}.`])
      }
      if (ts.isQualifiedName(n) && ts.isIdentifier(n.left) && n.left.text === local) {
        const ns = map.byName.get(n.right.text)
        if (ns !== undefined && !(ns === n.right.text && map.nsSelf.has(ns))) edits.push([n.right.getStart(sf), n.right.getStart(sf), `${ns}.`])
      }
      ts.forEachChild(n, walk)
    }
    walk(scope)
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
    const spec = keyOf(s.moduleSpecifier.text)
    const map = maps.get(spec)
    const clause = s.importClause
    if (clause?.name) problem(file, s, `default import from ${spec}`)
    const bindings = clause?.namedBindings
    if (bindings && ts.isNamespaceImport(bindings)) {
      // import * as T from "…": `T.name` becomes `T.Module.name`.
      memberAccess(bindings.name.text, map, sf)
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
    if (!ts.isExportDeclaration(s) || !s.moduleSpecifier || keyOf(s.moduleSpecifier.text) === undefined) continue
    const spec = keyOf(s.moduleSpecifier.text)
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
    return all.length === 0 ? "" : `import ${typeOnlyDecl ? "type " : ""}{ ${all.join(", ")} } from "${textOf.get(spec)}"`
  }
  const placed = new Set()
  const removeStatement = (s) => {
    let end = s.getEnd()
    if (text[end] === "\n") end++
    edits.push([s.getStart(sf), end, ""])
  }
  for (const s of plans) {
    const spec = keyOf(s.moduleSpecifier.text)
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
    const spec = keyOf(s.moduleSpecifier.text)
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
        memberAccess(param.text, map, fn.body)
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

const overlay = new Map() // file -> text written by this run
const current = (file) => overlay.get(file) ?? read(file)
const write = (file, text) => {
  if (!changed.includes(relative(ROOT, file))) changed.push(relative(ROOT, file))
  overlay.set(file, text)
  if (!DRY) writeFileSync(file, text)
}
for (const [, m] of maps) if (m.changedIndex) write(m.file, m.next)

const files = execFileSync("git", ["ls-files", "-co", "--exclude-standard", "*.ts", "*.mts", "*.mjs", "*.md"], { cwd: ROOT, encoding: "utf8" })
  .split("\n").filter(Boolean)
  .filter((f) => /^(packages\/[^/]+\/(src|test|bench|scripts)\/|examples\/|scripts\/|packages\/[^/]+\/README\.md$|README\.md$)/.test(f))
  .filter((f) => !f.includes("node_modules/") && !f.includes("/dist/"))
for (const rel of files) {
  const file = join(ROOT, rel)
  if (!existsSync(file)) continue
  const text = read(file)
  if (rel.endsWith(".md") && !text.includes("@dsh/")) continue
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

// ---------------------------------------------------------------- phase 2: Effect's names

/**
 * A service module's constructor and layer take Effect's names: `make`, `layer`, `layerWith…`
 * (package, module, old name, new name). Uses inside the package keep their old local name
 * (`import { make as makeSubagents } from "./Subagents.ts"`); importers of the package's
 * index use the new one (`Subagents.make`).
 */
const RENAMES = [
  ["@dsh/subagent", "Subagents", "makeSubagents", "make"],
  ["@dsh/subagent", "Worktrees", "makeWorktrees", "make"],
  ["@dsh/subagent", "Worktrees", "worktreesLayer", "layer"],
  ["@dsh/subagent", "Lane", "makeMemoryLane", "makeMemory"],
  ["@dsh/session", "StoreTrouble", "makeStoreTrouble", "make"],
  ["@dsh/tools", "Permissions", "makePermissions", "make"],
  ["@dsh/tools", "Permissions", "permissionsLayer", "layer"],
  ["@dsh/tools", "Hooks", "makeHooks", "make"],
  ["@dsh/telemetry", "FileLog", "fileLogLayer", "layer"],
  ["@dsh/subprocess", "LocalProcessLauncher", "makeLocalProcessLauncher", "make"],
  ["@dsh/subprocess", "LocalProcessLauncher", "layerLocal", "layer"],
  ["@dsh/harness", "Harness", "makeHost", "make"]
]
/**
 * Members of a class (its statics) or of an exported object that become the module's own
 * exports (package, module, owner): `ModelRegistry.ModelRegistry.layerWith` → `ModelRegistry.layerWith`.
 * `drop`: the object only aliased module exports renamed above; it is removed.
 */
const HOISTS = [
  { pkg: "@dsh/llm", module: "ModelRegistry", owner: "ModelRegistry" },
  { pkg: "@dsh/subagent", module: "Lane", owner: "Lane" },
  { pkg: "@dsh/harness", module: "Harness", owner: "Harness" },
  { pkg: "@dsh/subprocess", module: "LocalProcessLauncher", owner: "LocalProcessLauncher", drop: { make: "make", layer: "layer" } }
]

const moduleFileOf = (pkg, module) => {
  for (const m of maps.values()) {
    if (m.pkg === pkg && m.namespaces.has(module)) return moduleOf(m.file, m.namespaces.get(module)).file
  }
  return undefined
}
const dedent = (text) => text.split("\n").map((l) => (l.startsWith("  ") ? l.slice(2) : l)).join("\n")

/** In the module itself: statics and object members out to module level; renamed declarations. */
const hoistIn = (file, hoists, renames) => {
  let text = current(file)
  const members = new Map() // owner -> Map(member -> new name)
  for (const h of hoists) {
    const sf = parse(file, text)
    const decl = sf.statements.find((st) =>
      (ts.isClassDeclaration(st) && st.name?.text === h.owner) ||
      (ts.isVariableStatement(st) && st.declarationList.declarations[0]?.name.getText(sf) === h.owner))
    if (decl === undefined) continue // already hoisted
    const names = new Map()
    members.set(h.owner, names)
    if (h.drop) {
      for (const [m, n] of Object.entries(h.drop)) names.set(m, n)
      let start = decl.getFullStart()
      text = text.slice(0, start) + text.slice(decl.getEnd()).replace(/^\n/, "")
      continue
    }
    const outs = []
    if (ts.isClassDeclaration(decl)) {
      const statics = decl.members.filter((m) => ts.isPropertyDeclaration(m) && m.modifiers?.some((x) => x.kind === ts.SyntaxKind.StaticKeyword))
      if (statics.length === 0) continue
      for (const m of statics) names.set(m.name.getText(sf), m.name.getText(sf))
      for (const m of statics) {
        const full = text.slice(m.getFullStart(), m.getEnd()).replace(/^\s*\n/, "")
        outs.push(dedent(full).replace(/^(\s*(?:\/\*\*[\s\S]*?\*\/\s*)?)static readonly /, "$1export const "))
      }
      const head = text.slice(decl.getStart(sf), decl.members.pos).trimEnd()
      const replacement = `${head.endsWith("{") ? head : `${head} {`}}\n\n${outs.join("\n\n")}`
      text = text.slice(0, decl.getStart(sf)) + replacement + text.slice(decl.getEnd())
    } else {
      const init = decl.declarationList.declarations[0].initializer
      if (!init || !ts.isObjectLiteralExpression(init)) continue
      for (const prop of init.properties) {
        if (!ts.isPropertyAssignment(prop)) {
          problem(file, prop, `${h.owner}: only \`name: value\` members can be hoisted`)
          continue
        }
        const name = prop.name.getText(sf)
        names.set(name, name)
        const comment = text.slice(prop.getFullStart(), prop.getStart(sf)).replace(/^\s*\n/, "")
        outs.push(`${dedent(comment)}export const ${name} = ${dedent(prop.initializer.getText(sf))}`)
      }
      const lead = text.slice(decl.getFullStart(), decl.getStart(sf))
      const keepLead = lead.replace(/\/\*\*[\s\S]*?\*\/\s*$/, "")
      text = text.slice(0, decl.getFullStart()) + keepLead + outs.join("\n\n") + text.slice(decl.getEnd())
    }
  }
  // Inside the module: `Owner.member` → `member`, renamed declarations and their uses.
  const sf = parse(file, text)
  const edits = []
  const visit = (n) => {
    if (ts.isPropertyAccessExpression(n) && ts.isIdentifier(n.expression) && members.get(n.expression.text)?.has(n.name.text)) {
      edits.push([n.getStart(sf), n.getEnd(), members.get(n.expression.text).get(n.name.text)])
      return
    }
    if (ts.isIdentifier(n) && renames.has(n.text)) {
      const p = n.parent
      const isDecl = (ts.isVariableDeclaration(p) || ts.isFunctionDeclaration(p)) && p.name === n
      if (isDecl || isReference(n)) edits.push([n.getStart(sf), n.getEnd(), renames.get(n.text)])
    }
    ts.forEachChild(n, visit)
  }
  visit(sf)
  edits.sort((a, b) => b[0] - a[0])
  for (const [a, b, r] of edits) text = text.slice(0, a) + r + text.slice(b)
  const declared = declaredNames(parse(file, text), new Set())
  for (const [, n] of renames) if (!declared.has(n)) problem(file, undefined, `renamed ${n} is not declared`)
  if (text !== current(file)) write(file, text)
  return members
}

// Derived from the tree besides the table: in a module M, `makeM` → `make`, `makeMWith` →
// `makeWith`, `mLayer` → `layer` (unless M already has that name anywhere).
const derived = []
for (const m of maps.values()) {
  for (const [ns, sp] of m.namespaces) {
    const file = moduleOf(m.file, sp).file
    if (!existsSync(file)) continue
    const names = new Set(exportsOf(file))
    const declared = declaredNames(parse(file, current(file)), new Set())
    const lc = `${ns[0].toLowerCase()}${ns.slice(1)}`
    for (const [from, to] of [[`make${ns}`, "make"], [`make${ns}With`, "makeWith"], [`${lc}Layer`, "layer"]]) {
      if (!names.has(from) || RENAMES.some(([p, mod, f]) => p === m.pkg && mod === ns && f === from)) continue
      if (declared.has(to)) console.log(`kept: ${relative(ROOT, file)}: ${from} (the module already has a binding named ${to})`)
      else if (!derived.some(([p, mod, f]) => p === m.pkg && mod === ns && f === from)) derived.push([m.pkg, ns, from, to])
    }
  }
}
const hoisted = new Map() // `${pkg}:${module}` -> Map(owner -> Map(member -> new))
const renamed = new Map() // `${pkg}:${module}` -> Map(old -> new)
for (const [pkg, module, from, to] of [...RENAMES, ...derived]) {
  const key = `${pkg}:${module}`
  renamed.set(key, (renamed.get(key) ?? new Map()).set(from, to))
}
const moduleKeys = new Set([...renamed.keys(), ...HOISTS.map((h) => `${h.pkg}:${h.module}`)])
const moduleFiles2 = new Map()
for (const key of moduleKeys) {
  const [pkg, module] = key.split(":")
  const file = moduleFileOf(pkg, module)
  if (file === undefined) {
    problems.push(`no module ${module} in ${pkg}`)
    continue
  }
  moduleFiles2.set(file, key)
  hoisted.set(key, hoistIn(file, HOISTS.filter((h) => `${h.pkg}:${h.module}` === key), renamed.get(key) ?? new Map()))
}

/** Importers: relative ones alias the new name to the old; index importers use the new names. */
const renameUses = (file, text) => {
  const sf = parse(file, text)
  const edits = []
  const nsLocals = new Map() // local namespace name -> key
  for (const st of sf.statements) {
    if (!ts.isImportDeclaration(st) || !st.importClause?.namedBindings || !ts.isNamedImports(st.importClause.namedBindings)) continue
    const spec = st.moduleSpecifier.text
    const target = spec.startsWith(".") ? resolve(dirname(file), spec) : subpathModule.get(spec)
    const entryKey = maps.has(spec) ? spec : target !== undefined ? entryByFile.get(target) : undefined
    for (const el of st.importClause.namedBindings.elements) {
      const orig = (el.propertyName ?? el.name).text
      if (entryKey !== undefined) {
        const key = `${maps.get(entryKey).pkg}:${orig}`
        if (moduleKeys.has(key) && maps.get(entryKey).namespaces.has(orig)) nsLocals.set(el.name.text, key)
      } else if (target !== undefined && moduleFiles2.has(target)) {
        const to = renamed.get(moduleFiles2.get(target))?.get(orig)
        if (to !== undefined) edits.push([el.getStart(sf), el.getEnd(), `${to} as ${el.name.text}`])
        const owner = hoisted.get(moduleFiles2.get(target))?.get(orig)
        if (owner !== undefined) {
          // `Owner.member` inside the package: the member imported under `ownerMember`.
          const aliases = new Map()
          const find = (n) => {
            if (ts.isPropertyAccessExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === el.name.text && owner.has(n.name.text)) {
              const member = owner.get(n.name.text)
              const alias = `${orig[0].toLowerCase()}${orig.slice(1)}${member[0].toUpperCase()}${member.slice(1)}`
              aliases.set(member, alias)
              edits.push([n.getStart(sf), n.getEnd(), alias])
            }
            ts.forEachChild(n, find)
          }
          find(sf)
          const extra = [...aliases].map(([m, a]) => `${m} as ${a}`)
          if (extra.length > 0) edits.push([el.getEnd(), el.getEnd(), `, ${extra.join(", ")}`])
        }
      }
    }
  }
  // const { Module: { old } } = await import("@dsh/x") → { Module: { new: old } }
  const destructured = (n) => {
    if (ts.isVariableDeclaration(n) && ts.isObjectBindingPattern(n.name) && n.initializer) {
      const spec = /import\("(@dsh\/[^"]+)"\)/.exec(n.initializer.getText(sf))?.[1]
      const entry = spec === undefined ? undefined : maps.get(spec)
      for (const el of entry === undefined ? [] : n.name.elements) {
        const module = (el.propertyName ?? el.name).getText(sf)
        const names = renamed.get(`${entry.pkg}:${module}`)
        if (names === undefined || !ts.isObjectBindingPattern(el.name)) continue
        for (const inner of el.name.elements) {
          const orig = (inner.propertyName ?? inner.name).getText(sf)
          const to = names.get(orig)
          if (to === undefined) continue
          if (inner.propertyName) edits.push([inner.propertyName.getStart(sf), inner.propertyName.getEnd(), to])
          else edits.push([inner.name.getStart(sf), inner.name.getStart(sf), `${to}: `])
        }
      }
    }
    ts.forEachChild(n, destructured)
  }
  destructured(sf)
  if (nsLocals.size > 0) {
    const visit = (n) => {
      if (ts.isPropertyAccessExpression(n) && ts.isIdentifier(n.expression) && nsLocals.has(n.expression.text)) {
        const key = nsLocals.get(n.expression.text)
        const to = renamed.get(key)?.get(n.name.text)
        if (to !== undefined) edits.push([n.name.getStart(sf), n.name.getEnd(), to])
        // `Ns.Owner.member` → `Ns.member`
        const outer = n.parent
        const owner = hoisted.get(key)?.get(n.name.text)
        if (owner !== undefined && ts.isPropertyAccessExpression(outer) && outer.expression === n && owner.has(outer.name.text)) {
          edits.push([n.name.getStart(sf), outer.name.getEnd(), owner.get(outer.name.text)])
          return
        }
      }
      // The same in type queries: `typeof Ns.old`, `typeof Ns.Owner.member`.
      if (ts.isQualifiedName(n) && ts.isIdentifier(n.left) && nsLocals.has(n.left.text)) {
        const key = nsLocals.get(n.left.text)
        const to = renamed.get(key)?.get(n.right.text)
        if (to !== undefined) edits.push([n.right.getStart(sf), n.right.getEnd(), to])
        const outer = n.parent
        const owner = hoisted.get(key)?.get(n.right.text)
        if (owner !== undefined && ts.isQualifiedName(outer) && outer.left === n && owner.has(outer.right.text)) {
          edits.push([n.right.getStart(sf), outer.right.getEnd(), owner.get(outer.right.text)])
          return
        }
      }
      ts.forEachChild(n, visit)
    }
    visit(sf)
  }
  edits.sort((a, b) => b[0] - a[0])
  let out = text
  for (const [a, b, r] of edits) out = out.slice(0, a) + r + out.slice(b)
  return out
}
for (const rel of files) {
  const file = join(ROOT, rel)
  if (!existsSync(file)) continue
  const text = current(file)
  const next = rel.endsWith(".md")
    ? text.replace(/(```(?:ts|typescript)\n)([\s\S]*?)(```)/g, (all, open, code, close) => `${open}${renameUses(`${file}.block.ts`, code)}${close}`)
    : renameUses(file, text)
  if (next !== text) write(file, next)
}
console.log(`${changed.length} files changed${DRY ? " (dry run)" : ""}`)
for (const p of problems) console.log(`left: ${p}`)
process.exit(problems.length > 0 ? 1 : 0)
