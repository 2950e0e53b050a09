import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, resolve } from "node:path"
import { parseDocument } from "yaml"
import { describe, expect, it } from "vitest"
import { parseSimple } from "../src/internal/Frontmatter.ts"
import { CORPUS, corpusPresent } from "./fixtures/corpus.ts"

const present = corpusPresent("frontmatter-fast.test.ts")
const BUILTINS = resolve(import.meta.dirname, "../agents")

const markdownFiles = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? markdownFiles(path) : name.endsWith(".md") ? [path] : []
  })

const frontmatterOf = (text: string): string | undefined => /^---\r?\n([\s\S]*?)\r?\n---/.exec(text)?.[1]

describe("the flat frontmatter fast path", () => {
  it("gives exactly what strict YAML gives, on every corpus and built-in file it accepts", () => {
    let accepted = 0
    for (const file of [...markdownFiles(BUILTINS), ...(present ? markdownFiles(CORPUS) : [])]) {
      const source = frontmatterOf(readFileSync(file, "utf8"))
      if (source === undefined) continue
      const simple = parseSimple(source)
      if (simple === undefined) continue
      accepted++
      const doc = parseDocument(source, { uniqueKeys: true })
      expect(doc.errors, file).toEqual([])
      expect(simple, file).toEqual(doc.toJS())
    }
    expect(accepted).toBeGreaterThanOrEqual(present ? 40 : 4)
  })

  it("leaves anything beyond flat plain text to the YAML parser", () => {
    for (const source of ["a: true", "a: 12", "a: 'quoted'", "a: x: y", "a: b # note", "a:\n  - x", "a: [x]", "a: |", "a: x\na: y", "  a: x", "a: -x"]) {
      expect(parseSimple(source), source).toBeUndefined()
    }
    expect(parseSimple("name: x\ntools: []\ndescription: Reads code (quickly), e.g. \"fast\".")).toEqual({
      name: "x",
      tools: [],
      description: "Reads code (quickly), e.g. \"fast\"."
    })
  })
})
