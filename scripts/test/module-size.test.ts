import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterAll, describe, expect, it } from "vitest"

const script = resolve(import.meta.dirname, "..", "module-size.mjs")
const root = mkdtempSync(join(tmpdir(), "dsh-module-size-"))
afterAll(() => rmSync(root, { recursive: true, force: true }))

// A function whose node spans `lines` lines, first and last included.
const fn = (name: string, lines: number, binding = "export const") =>
  [`${binding} ${name} = () => {`, ...Array.from({ length: lines - 2 }, (_, i) => `  console.log(${i})`), "}"].join("\n")

const pkg = (name: string, files: Record<string, string>) => {
  const dir = join(root, name)
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(dir, file, ".."), { recursive: true })
    writeFileSync(join(dir, file), text)
  }
  return dir
}

const run = (...args: Array<string>) => {
  const r = spawnSync(process.execPath, [script, ...args], { cwd: root, encoding: "utf8" })
  return { status: r.status, lines: r.stdout.trim().split("\n") }
}

describe("scripts/module-size.mjs", () => {
  const big = pkg("big", {
    "src/long.ts": `${fn("long", 121)}\n${fn("fits", 120)}\n`,
    "src/nested.ts": `import { Effect } from "effect"\nexport const make = Effect.gen(function*() {\n${fn("inner", 121, "  const")}
  return inner\n})\n`,
    "src/wide.ts": Array.from({ length: 351 }, (_, i) => `export const v${i} = ${i}`).join("\n") + "\n",
    "src/fine.ts": Array.from({ length: 350 }, (_, i) => `export const v${i} = ${i}`).join("\n") + "\n",
    // Outside src/: tests are not library code.
    "test/long.test.ts": `${fn("huge", 400)}\n`
  })
  const small = pkg("small", { "src/ok.ts": `${fn("ok", 120)}\n` })

  it("reports a 121-line function and a 351-line file with file:line, and refuses with --check", () => {
    const r = run("--check", big)
    expect(r.status).toBe(1)
    expect(r.lines).toContain("big/src/long.ts:1: function long: 121 lines (over 120)")
    expect(r.lines).toContain("big/src/wide.ts: 351 lines (over 350)")
    // The function inside the Effect.gen body is found, and so is the generator that holds it.
    expect(r.lines).toContain("big/src/nested.ts:3: function inner: 121 lines (over 120)")
    expect(r.lines).toContain("big/src/nested.ts:2: function Effect.gen(…): 124 lines (over 120)")
    expect(r.lines.some((l) => l.includes("fits") || l.includes("fine.ts") || l.includes("test/"))).toBe(false)
    expect(r.lines.at(-1)).toBe("module sizes: 1 file(s) over 350 lines, 3 function(s) over 120 lines")
  })

  it("holds an application to 1,200 lines in all, however they are split", () => {
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `export const v${i} = ${i}`).join("\n") + "\n"
    const over = pkg("over-app", { "src/a.ts": lines(300), "src/b/c.ts": lines(300), "src/d.ts": lines(300), "src/e.ts": lines(301) })
    const r = run("--check", "--app", over)
    expect(r.status).toBe(1)
    expect(r.lines).toContain("over-app/src: 1201 lines in all (over 1200 for an application)")
    expect(r.lines.at(-1)).toBe("module sizes: 0 file(s) over 350 lines, 0 function(s) over 120 lines, 1 application(s) over 1200 lines")
    const within = pkg("within-app", { "src/a.ts": lines(600), "src/b.ts": lines(600) })
    expect(run("--check", "--app", within).status).toBe(0)
  })

  it("only reports without --check, and passes code within the limits", () => {
    expect(run(big).status).toBe(0)
    const r = run("--check", small)
    expect(r.status).toBe(0)
    expect(r.lines).toEqual(["module sizes: no file over 350 lines, no function over 120 lines"])
  })
})
