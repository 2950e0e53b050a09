// Each package README's main example is a file, `examples/readme/<package dir>.ts`, that the
// examples test runs in an installed app. The README holds it verbatim, as the ```ts block right
// after a marker line `<!-- example: examples/readme/<dir>.ts -->`; a package with more than one
// has further files `<dir>.<part>.ts`, marked the same way.
//
//   node scripts/readme-examples.ts           lists READMEs whose blocks differ from their files
//   node scripts/readme-examples.ts --write   copies every file into its block
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"

export const ROOT = resolve(import.meta.dirname, "..")
export const EXAMPLES_DIR = join(ROOT, "examples", "readme")

/** Packages without an example file: the CLI's README documents a command, not an API. */
export const WITHOUT_EXAMPLE: ReadonlyArray<string> = ["cli"]

/** One marked example in a README: the file it names and where its code sits. */
export interface ExampleBlock {
  /** The path after `example:`, relative to the repository root. */
  readonly file: string
  /** The code between the fences, final newline included. */
  readonly code: string
  /** Character offsets of `code` in the README. */
  readonly start: number
  readonly end: number
}

const MARKER = /^<!-- example: (\S+) -->$/

/** The marked blocks of a README; a marker not followed by a closed ```ts block is an error. */
export const exampleBlocks = (readme: string, name = "README"): ReadonlyArray<ExampleBlock> => {
  const blocks: Array<ExampleBlock> = []
  const lines = readme.split("\n")
  let offset = 0
  const offsets = lines.map((line) => {
    const at = offset
    offset += line.length + 1
    return at
  })
  for (let i = 0; i < lines.length; i++) {
    const file = MARKER.exec(lines[i] ?? "")?.[1]
    if (file === undefined) continue
    if (lines[i + 1] !== "```ts") throw new Error(`${name}:${i + 1}: the marker for ${file} must be followed by a \`\`\`ts line`)
    const close = lines.findIndex((line, j) => j > i + 1 && line === "```")
    if (close < 0) throw new Error(`${name}:${i + 1}: the block for ${file} is never closed`)
    const start = offsets[i + 2] ?? readme.length
    const end = offsets[close] ?? readme.length
    blocks.push({ file, code: readme.slice(start, end), start, end })
  }
  return blocks
}

const isPrivate = (dir: string): boolean =>
  (JSON.parse(readFileSync(join(ROOT, "packages", dir, "package.json"), "utf8")) as { private?: boolean }).private === true

/** Package directories that must have an example (every published one but the CLI), with their README paths. */
export const packagesWithExamples = (): ReadonlyArray<{ readonly dir: string; readonly readme: string }> =>
  readdirSync(join(ROOT, "packages"))
    .filter((dir) => existsSync(join(ROOT, "packages", dir, "package.json")) && !WITHOUT_EXAMPLE.includes(dir) && !isPrivate(dir))
    .sort()
    .map((dir) => ({ dir, readme: join(ROOT, "packages", dir, "README.md") }))

/** The example files, by file name: `<dir>.ts` is a package's main example, `<dir>.<part>.ts` a further one. */
export const exampleFiles = (): ReadonlyArray<string> =>
  readdirSync(EXAMPLES_DIR).filter((f) => f.endsWith(".ts")).sort()

/** The package directory an example file belongs to: `tool-subagent.control.ts` → `tool-subagent`. */
export const exampleDir = (file: string): string => file.replace(/\.ts$/, "").split(".")[0] ?? file

/** The README with every marked block replaced by its file's current content. */
export const syncedReadme = (readme: string, name?: string): string => {
  let out = readme
  for (const block of [...exampleBlocks(readme, name)].reverse()) {
    out = out.slice(0, block.start) + readFileSync(join(ROOT, block.file), "utf8") + out.slice(block.end)
  }
  return out
}

/** Every README with marked examples: the root README (its first example is the kit's), then each package's. */
export const readmesWithExamples = (): ReadonlyArray<{ readonly name: string; readonly readme: string }> => [
  { name: "README.md", readme: join(ROOT, "README.md") },
  ...packagesWithExamples().map(({ dir, readme }) => ({ name: `packages/${dir}/README.md`, readme }))
]

if (import.meta.main) {
  const write = process.argv.includes("--write")
  let stale = 0
  for (const { name, readme } of readmesWithExamples()) {
    const text = readFileSync(readme, "utf8")
    const synced = syncedReadme(text, name)
    if (synced === text) continue
    stale++
    if (write) writeFileSync(readme, synced)
    console.log(`${write ? "updated" : "differs"}: ${name}`)
  }
  if (!write && stale > 0) process.exitCode = 1
}
