// Import cycles between the modules of one package: a module that (through others) imports
// itself must be read together with everything on its circle, so the build refuses them.
// Relative imports only (type imports included: they tie the modules together for a reader
// just the same); other packages are another layer.
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join, normalize, relative } from "node:path"

const sources = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []
  )

/** The first import cycle among `src/` of the package in `dir`, as a list of paths, or undefined. */
export const firstCycle = (dir) => {
  const src = join(dir, "src")
  if (!existsSync(src)) return undefined
  const edges = new Map()
  for (const file of sources(src)) {
    const targets = []
    for (const m of readFileSync(file, "utf8").matchAll(/\bfrom\s+"(\.{1,2}\/[^"]+)"/g)) {
      targets.push(normalize(join(dirname(file), m[1])))
    }
    edges.set(normalize(file), targets)
  }
  const state = new Map() // 1: on the path, 2: done
  const path = []
  const visit = (file) => {
    state.set(file, 1)
    path.push(file)
    for (const next of edges.get(file) ?? []) {
      if (state.get(next) === 1) return [...path.slice(path.indexOf(next)), next]
      if (state.get(next) === undefined && edges.has(next)) {
        const found = visit(next)
        if (found !== undefined) return found
      }
    }
    path.pop()
    state.set(file, 2)
    return undefined
  }
  for (const file of edges.keys()) {
    if (state.get(file) !== undefined) continue
    const found = visit(file)
    if (found !== undefined) return found.map((f) => relative(dir, f))
  }
  return undefined
}
