// An esbuild plugin for the CLI's bundle: `import { Subagents } from "@dsh/subagent"` becomes
// `import * as Subagents from "<…>/subagent/src/Subagents.ts"`.
//
// Why: with code splitting, esbuild puts every module an index re-exports with `export * as`
// into the chunks of every entry that imports that index, and materialises each namespace as an
// object whose getters keep all of the module's exports alive. `dsh --help`, which needs only
// `Version.VERSION`, loaded 500 KB of Effect through `@dsh/core`'s `Trace`. Importing the module
// itself gives esbuild what flat names gave it: per-module chunks and per-export tree shaking.
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"

const EXPORT_STAR_AS = /^export \* as (\w+) from "(\.[^"]+)"/gm
const EXPORT_NAMED = /^export \{([^}]*)\} from "(\.[^"]+)"/gm
const IMPORT_NAMED = /^import \{([^}]*)\} from "(@dsh\/[^"]+)"\n?/gm

/** Each workspace entry (`@dsh/x`, `@dsh/x/testing`): its members' modules, from its index. */
const entryMembers = (packagesDir) => {
  const entries = new Map()
  for (const dir of readdirSync(packagesDir)) {
    let pkg
    try {
      pkg = JSON.parse(readFileSync(join(packagesDir, dir, "package.json"), "utf8"))
    } catch {
      continue
    }
    for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
      const source = typeof target === "object" && target !== null ? target["@dsh/source"] : undefined
      if (source === undefined) continue
      const file = join(packagesDir, dir, source)
      const text = readFileSync(file, "utf8")
      const members = new Map() // local name -> { file, star, imported }
      for (const [, name, from] of text.matchAll(EXPORT_STAR_AS)) {
        members.set(name, { file: resolve(dirname(file), from), star: true })
      }
      for (const [, list, from] of text.matchAll(EXPORT_NAMED)) {
        for (const el of list.split(",").map((s) => s.trim()).filter((s) => s && !s.startsWith("type "))) {
          const [imported, exported = imported] = el.split(/\s+as\s+/)
          members.set(exported, { file: resolve(dirname(file), from), star: false, imported })
        }
      }
      entries.set(subpath === "." ? pkg.name : `${pkg.name}${subpath.slice(1)}`, members)
    }
  }
  return entries
}

/** The rewritten import statements for one `import { … } from "@dsh/…"`, or undefined to keep it. */
const rewrite = (members, list, spec) => {
  const kept = []
  const direct = []
  for (const el of list.split(",").map((s) => s.trim()).filter(Boolean)) {
    if (el.startsWith("type ")) continue // erased by esbuild in any case
    const [imported, local = imported] = el.split(/\s+as\s+/)
    const member = members.get(imported)
    if (member === undefined) kept.push(el)
    else if (member.star) direct.push(`import * as ${local} from ${JSON.stringify(member.file)}`)
    else direct.push(`import { ${member.imported} as ${local} } from ${JSON.stringify(member.file)}`)
  }
  if (direct.length === 0) return undefined
  if (kept.length > 0) direct.push(`import { ${kept.join(", ")} } from ${JSON.stringify(spec)}`)
  return direct.join("\n") + "\n"
}

export const directNamespaces = (packagesDir) => ({
  name: "direct-namespaces",
  setup(build) {
    const entries = entryMembers(packagesDir)
    build.onLoad({ filter: /[\\/]packages[\\/][^\\/]+[\\/]src[\\/].*\.ts$/ }, (args) => {
      const text = readFileSync(args.path, "utf8")
      const contents = text.replace(IMPORT_NAMED, (whole, list, spec) => {
        const members = entries.get(spec)
        return (members && rewrite(members, list, spec)) ?? whole
      })
      return { contents, loader: "ts" }
    })
  }
})
