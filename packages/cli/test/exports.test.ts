import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { describe, expect, it } from "vitest"

const PACKAGES = resolve(import.meta.dirname, "../..")

interface Target {
  readonly "@dsh/source"?: string
  readonly types?: string
  readonly import?: string
}

/** Every `exports` entry of every package, as users import them: the built files. */
const entries = readdirSync(PACKAGES).flatMap((dir) => {
  const pkg = JSON.parse(readFileSync(join(PACKAGES, dir, "package.json"), "utf8")) as { name: string; exports: Record<string, Target | string | null> }
  return Object.entries(pkg.exports).flatMap(([key, target]) =>
    target !== null && typeof target === "object" && target.import !== undefined ? [{ dir, name: `${pkg.name}${key.slice(1)}`, target }] : []
  )
})

describe("package exports", () => {
  it("cover every library package (the CLI is a command, not a library)", () => {
    expect(new Set(entries.map((e) => e.dir))).toEqual(new Set(readdirSync(PACKAGES).filter((d) => d !== "cli")))
  })

  for (const { dir, name, target } of entries) {
    it(`${name} resolves to built JavaScript and declarations, and imports`, async () => {
      const root = join(PACKAGES, dir)
      for (const file of [target["@dsh/source"], target.types, target.import]) {
        expect(file !== undefined && existsSync(join(root, file)), `${name}: ${file}`).toBe(true)
      }
      const module = (await import(pathToFileURL(join(root, target.import!)).href)) as Record<string, unknown>
      expect(Object.keys(module).length, name).toBeGreaterThan(0)
    })
  }
})

describe("the built-in tool names", () => {
  it("are the same in @dsh/agent-files (for agent files' policy warnings) and @dsh/tools-builtin (the tools themselves)", async () => {
    const { ToolNames: { BUILTIN_TOOL_NAMES: named } } = await import("@dsh/agent-files")
    const { BuiltinTools: { BUILTIN_TOOL_NAMES: built } } = await import("@dsh/tools-builtin")
    expect([...named]).toEqual([...built])
  })
})
