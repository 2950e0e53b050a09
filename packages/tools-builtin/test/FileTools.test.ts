import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Permissions } from "@dsh/tools"
import { Effect } from "effect"
import { PathPolicy } from "../src/index.ts"
import { call, tempDir } from "./support.ts"

describe("Read", () => {
  it.live("returns cat -n style numbered lines", () =>
    Effect.gen(function*() {
      const cwd = tempDir()
      writeFileSync(join(cwd, "a.txt"), "first\nsecond\n")
      const result = yield* call(cwd, "Read", { path: "a.txt" })
      assert.isUndefined(result.isError)
      assert.strictEqual(result.content, "     1\tfirst\n     2\tsecond")
    }))

  it.live("pages with offset and limit and says when more lines follow", () =>
    Effect.gen(function*() {
      const cwd = tempDir()
      writeFileSync(join(cwd, "n.txt"), Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n"))
      const result = yield* call(cwd, "Read", { path: "n.txt", offset: 3, limit: 2 })
      assert.strictEqual(result.content, "     3\tline 3\n     4\tline 4\n… 6 more lines (10 in total). Read on with offset=5.")
      const past = yield* call(cwd, "Read", { path: "n.txt", offset: 11 })
      assert.isTrue(past.isError)
      assert.include(past.content, "offset 11 is past the end of n.txt, which has 10 lines")
    }))

  it.live("stops at 2000 lines by default and cuts long lines", () =>
    Effect.gen(function*() {
      const cwd = tempDir()
      const lines = Array.from({ length: 2500 }, (_, i) => (i === 0 ? "x".repeat(3000) : `l${i + 1}`))
      writeFileSync(join(cwd, "big.txt"), lines.join("\n"))
      const result = yield* call(cwd, "Read", { path: join(cwd, "big.txt") })
      const out = result.content.split("\n")
      assert.strictEqual(out[0], `     1\t${"x".repeat(2000)}… [line cut at 2000 characters]`)
      assert.strictEqual(out[1999], "  2000\tl2000")
      assert.strictEqual(out[2000], "… 500 more lines (2500 in total). Read on with offset=2001.")
    }))

  it.live("refuses binary files, directories and missing files with clear errors", () =>
    Effect.gen(function*() {
      const cwd = tempDir()
      writeFileSync(join(cwd, "bin.dat"), Buffer.from([0x50, 0x4b, 0x00, 0x01]))
      mkdirSync(join(cwd, "dir"))
      const binary = yield* call(cwd, "Read", { path: "bin.dat" })
      assert.isTrue(binary.isError)
      assert.include(binary.content, "bin.dat is a binary file")
      const dir = yield* call(cwd, "Read", { path: "dir" })
      assert.include(dir.content, "dir is a directory, not a file; use Glob")
      const missing = yield* call(cwd, "Read", { path: "nope.txt" })
      assert.strictEqual(missing.content, "Error: nope.txt does not exist")
    }))

  it.live("invalid arguments are reported before the handler runs", () =>
    Effect.gen(function*() {
      const result = yield* call(tempDir(), "Read", { path: "a.txt", offset: 0 })
      assert.isTrue(result.isError)
      assert.include(result.content, "invalid arguments for Read: offset")
    }))
})

describe("PathPolicy", () => {
  it.live("refuses paths that escape the working directory with .. or an absolute path", () =>
    Effect.gen(function*() {
      const outside = tempDir()
      writeFileSync(join(outside, "secret.txt"), "s")
      const cwd = tempDir()
      const dotdot = yield* call(cwd, "Read", { path: `../${outside.split("/").at(-1)}/secret.txt` })
      assert.isTrue(dotdot.isError)
      assert.include(dotdot.content, "outside the allowed directories")
      const absolute = yield* call(cwd, "Write", { path: join(outside, "new.txt"), content: "x" })
      assert.include(absolute.content, "outside the allowed directories")
      assert.isFalse(existsSync(join(outside, "new.txt")))
    }))

  it.live("follows symlinks: a link inside the workspace cannot lead outside, not even for new files", () =>
    Effect.gen(function*() {
      const outside = tempDir()
      writeFileSync(join(outside, "secret.txt"), "s")
      const cwd = tempDir()
      symlinkSync(join(outside, "secret.txt"), join(cwd, "link.txt"))
      symlinkSync(outside, join(cwd, "linkdir"))
      const read = yield* call(cwd, "Read", { path: "link.txt" })
      assert.include(read.content, "link.txt leads through a symlink to")
      const write = yield* call(cwd, "Write", { path: "linkdir/sub/new.txt", content: "x" })
      assert.include(write.content, "outside the allowed directories")
      assert.isFalse(existsSync(join(outside, "sub")))
      const grep = yield* call(cwd, "Grep", { pattern: "s", path: "linkdir" })
      assert.include(grep.content, "outside the allowed directories")
    }))

  it.live("extra roots and unconfined widen the policy", () =>
    Effect.gen(function*() {
      const other = tempDir()
      writeFileSync(join(other, "shared.txt"), "shared\n")
      const cwd = tempDir()
      const args = { path: join(other, "shared.txt") }
      const confined = yield* call(cwd, "Read", args)
      assert.isTrue(confined.isError)
      const widened = yield* call(cwd, "Read", args).pipe(Effect.provideService(PathPolicy.PathPolicy, PathPolicy.confinedPaths([other])))
      assert.strictEqual(widened.content, "     1\tshared")
      const free = yield* call(cwd, "Read", args).pipe(Effect.provideService(PathPolicy.PathPolicy, PathPolicy.unconfinedPaths))
      assert.strictEqual(free.content, "     1\tshared")
    }))
})

describe("Write", () => {
  it.live("creates parent directories, writes atomically and reports the bytes written", () =>
    Effect.gen(function*() {
      const cwd = tempDir()
      const created = yield* call(cwd, "Write", { path: "deep/er/f.txt", content: "héllo\n" })
      assert.strictEqual(created.content, "Created deep/er/f.txt: wrote 7 bytes.")
      assert.strictEqual(readFileSync(join(cwd, "deep/er/f.txt"), "utf8"), "héllo\n")
      const over = yield* call(cwd, "Write", { path: "deep/er/f.txt", content: "x" })
      assert.strictEqual(over.content, "Overwrote deep/er/f.txt: wrote 1 byte.")
      assert.deepStrictEqual(readdirSync(join(cwd, "deep/er")), ["f.txt"])
    }))

  it.live("writes through a symlink inside the workspace instead of replacing the link", () =>
    Effect.gen(function*() {
      const cwd = tempDir()
      writeFileSync(join(cwd, "target.txt"), "old")
      symlinkSync(join(cwd, "target.txt"), join(cwd, "alias.txt"))
      yield* call(cwd, "Write", { path: "alias.txt", content: "new" })
      assert.strictEqual(readFileSync(join(cwd, "target.txt"), "utf8"), "new")
    }))

  it.live("needs approval, and a directory is not a file", () =>
    Effect.gen(function*() {
      const cwd = tempDir()
      mkdirSync(join(cwd, "d"))
      const onDir = yield* call(cwd, "Write", { path: "d", content: "x" })
      assert.include(onDir.content, "d is a directory")
      const denied = yield* call(cwd, "Write", { path: "f.txt", content: "x" }).pipe(
        Effect.provideService(Permissions.Permissions, yield* Permissions.make({ mode: "plan" }))
      )
      assert.include(denied.content, "permission denied: Write(f.txt) is denied: the permission mode is plan")
      assert.isFalse(existsSync(join(cwd, "f.txt")))
    }))
})

describe("Edit", () => {
  const setup = (content: string) => {
    const cwd = tempDir()
    writeFileSync(join(cwd, "e.txt"), content)
    return cwd
  }

  it.live("replaces one exact occurrence, keeping $ patterns literal", () =>
    Effect.gen(function*() {
      const cwd = setup("const a = 1\nconst b = 2\n")
      const result = yield* call(cwd, "Edit", { path: "e.txt", old_string: "const b = 2", new_string: "const b = '$&'" })
      assert.strictEqual(result.content, "Edited e.txt: replaced 1 occurrence.")
      assert.strictEqual(readFileSync(join(cwd, "e.txt"), "utf8"), "const a = 1\nconst b = '$&'\n")
    }))

  it.live("refuses ambiguous matches unless replace_all, and says how many", () =>
    Effect.gen(function*() {
      const cwd = setup("x\nx\nx\n")
      const ambiguous = yield* call(cwd, "Edit", { path: "e.txt", old_string: "x", new_string: "y" })
      assert.isTrue(ambiguous.isError)
      assert.include(ambiguous.content, "occurs 3 times")
      assert.include(ambiguous.content, "replace_all")
      const all = yield* call(cwd, "Edit", { path: "e.txt", old_string: "x", new_string: "y", replace_all: true })
      assert.strictEqual(all.content, "Edited e.txt: replaced 3 occurrences.")
      assert.strictEqual(readFileSync(join(cwd, "e.txt"), "utf8"), "y\ny\ny\n")
    }))

  it.live("reports a missing old_string, old == new and a missing file", () =>
    Effect.gen(function*() {
      const cwd = setup("abc\n")
      const missing = yield* call(cwd, "Edit", { path: "e.txt", old_string: "zzz", new_string: "y" })
      assert.include(missing.content, "old_string was not found in e.txt")
      const same = yield* call(cwd, "Edit", { path: "e.txt", old_string: "abc", new_string: "abc" })
      assert.include(same.content, "old_string and new_string are the same")
      const noFile = yield* call(cwd, "Edit", { path: "none.txt", old_string: "a", new_string: "b" })
      assert.include(noFile.content, "none.txt does not exist")
      assert.strictEqual(readFileSync(join(cwd, "e.txt"), "utf8"), "abc\n")
    }))
})

describe("Glob", () => {
  it.live("lists matches relative to the searched directory, newest first, skipping .git and node_modules", () =>
    Effect.gen(function*() {
      const cwd = tempDir()
      for (const dir of ["src/a", ".git", "node_modules/p", "src/.hidden"]) mkdirSync(join(cwd, dir), { recursive: true })
      const files = ["src/old.ts", "src/a/new.ts", "src/.hidden/mid.ts", ".git/x.ts", "node_modules/p/y.ts", "src/readme.md"]
      for (const f of files) writeFileSync(join(cwd, f), "")
      utimesSync(join(cwd, "src/old.ts"), 1_000, 1_000)
      utimesSync(join(cwd, "src/.hidden/mid.ts"), 2_000, 2_000)
      utimesSync(join(cwd, "src/a/new.ts"), 3_000, 3_000)
      const result = yield* call(cwd, "Glob", { pattern: "**/*.ts", path: "src" })
      assert.strictEqual(result.content, "(paths relative to src)\na/new.ts\n.hidden/mid.ts\nold.ts")
      const top = yield* call(cwd, "Glob", { pattern: "**/*.ts" })
      assert.strictEqual(top.content, "src/a/new.ts\nsrc/.hidden/mid.ts\nsrc/old.ts")
    }))

  it.live("caps the list at 500 with a note", () =>
    Effect.gen(function*() {
      const cwd = tempDir()
      for (let i = 0; i < 510; i++) writeFileSync(join(cwd, `f${i}.txt`), "")
      const result = yield* call(cwd, "Glob", { pattern: "*.txt" })
      const lines = result.content.split("\n")
      assert.lengthOf(lines, 501)
      assert.strictEqual(lines[500], "… 10 more files not shown (510 matched). Use a narrower pattern or path.")
    }))

  it.live("says when nothing matches and refuses patterns that climb out", () =>
    Effect.gen(function*() {
      const cwd = tempDir()
      const none = yield* call(cwd, "Glob", { pattern: "*.rs" })
      assert.strictEqual(none.content, 'No files match "*.rs" in the working directory.')
      const climb = yield* call(cwd, "Glob", { pattern: "../**/*" })
      assert.isTrue(climb.isError)
      assert.include(climb.content, "must be relative and stay inside")
    }))
})

describe("Grep", () => {
  const setup = () => {
    const cwd = tempDir()
    mkdirSync(join(cwd, "src"))
    mkdirSync(join(cwd, "node_modules"))
    writeFileSync(join(cwd, "src/a.ts"), "const foo = 1\n// TODO fix\nconst Foo = 2\n")
    writeFileSync(join(cwd, "src/b.md"), "foo in docs\n")
    writeFileSync(join(cwd, "node_modules/c.ts"), "foo\n")
    writeFileSync(join(cwd, "bin.dat"), Buffer.from("foo\u0000bar"))
    return cwd
  }

  it.live("lists matching files by default, skipping binaries and node_modules", () =>
    Effect.gen(function*() {
      const result = yield* call(setup(), "Grep", { pattern: "foo" })
      assert.strictEqual(result.content, "src/a.ts\nsrc/b.md")
    }))

  it.live("content mode prints file:line:text; count mode file:count; ignoreCase and glob filter", () =>
    Effect.gen(function*() {
      const cwd = setup()
      const content = yield* call(cwd, "Grep", { pattern: "fo+", outputMode: "content", ignoreCase: true, glob: "*.ts" })
      assert.strictEqual(content.content, "src/a.ts:1:const foo = 1\nsrc/a.ts:3:const Foo = 2")
      const count = yield* call(cwd, "Grep", { pattern: "foo", outputMode: "count", ignoreCase: true, path: "src" })
      assert.strictEqual(count.content, "src/a.ts:2\nsrc/b.md:1")
      const single = yield* call(cwd, "Grep", { pattern: "TODO", outputMode: "content", path: "src/a.ts" })
      assert.strictEqual(single.content, "src/a.ts:2:// TODO fix")
    }))

  it.live("caps results with a note, reports no matches and invalid regexes", () =>
    Effect.gen(function*() {
      const cwd = setup()
      const capped = yield* call(cwd, "Grep", { pattern: "o", outputMode: "content", maxResults: 2 })
      assert.strictEqual(
        capped.content,
        "src/a.ts:1:const foo = 1\nsrc/a.ts:3:const Foo = 2\n… stopped at 2 results; narrow the pattern, path or glob, or raise maxResults."
      )
      const none = yield* call(cwd, "Grep", { pattern: "zebra" })
      assert.strictEqual(none.content, "No matches for /zebra/ in the working directory.")
      const invalid = yield* call(cwd, "Grep", { pattern: "(unclosed" })
      assert.isTrue(invalid.isError)
      assert.include(invalid.content, "invalid regular expression /(unclosed/")
      const mode = yield* call(cwd, "Grep", { pattern: "x", outputMode: "lines" })
      assert.include(mode.content, "invalid arguments for Grep: outputMode")
    }))
})
