import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { fileLogger } from "../src/FileLog.ts"

const logFile = () => join(mkdtempSync(join(tmpdir(), "dsh-log-")), "logs", "dsh.log")
const lines = (file: string) => readFileSync(file, "utf8").trimEnd().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>)

describe("fileLogger", () => {
  const level = process.env.DSH_LOG_LEVEL
  afterEach(() => {
    if (level === undefined) delete process.env.DSH_LOG_LEVEL
    else process.env.DSH_LOG_LEVEL = level
  })

  it("writes pino's JSON lines: level number, ISO time, pid, the fields in order, then msg", () => {
    delete process.env.DSH_LOG_LEVEL
    const file = logFile()
    const log = fileLogger(file)
    log.info({ sessionId: "s1", usage: { inputTokens: 1, outputTokens: 2 }, skipped: undefined, n: Number.NaN }, "session created")
    log.warn({}, "careful \"quoted\"\nnext line")
    const [first, second] = lines(file)
    expect(Object.keys(first!)).toEqual(["level", "time", "pid", "sessionId", "usage", "n", "msg"])
    expect(first).toMatchObject({ level: 30, pid: process.pid, sessionId: "s1", usage: { inputTokens: 1, outputTokens: 2 }, n: null, msg: "session created" })
    expect(new Date(first!.time as string).toISOString()).toBe(first!.time)
    expect(second).toMatchObject({ level: 40, msg: "careful \"quoted\"\nnext line" })
  })

  it("drops lines below DSH_LOG_LEVEL and refuses a level pino does not know", () => {
    process.env.DSH_LOG_LEVEL = "warn"
    const file = logFile()
    const log = fileLogger(file)
    log.info({}, "dropped")
    log.error({}, "kept")
    expect(lines(file).map((l) => l.msg)).toEqual(["kept"])
    process.env.DSH_LOG_LEVEL = "loud"
    expect(() => fileLogger(logFile())).toThrow("unknown level loud")
  })
})

describe("fileLogger, deferred (the CLI's: pino loads off the start path)", () => {
  it("a process that logs and exits before pino loads still leaves its lines, with their own times, in pino's format", () => {
    const file = logFile()
    // A child that logs, reports what the file holds right then, and exits at once.
    const script = [
      `import("${join(import.meta.dirname, "../src/FileLog.ts")}").then((m) => {`,
      `  const log = m.fileLogger(${JSON.stringify(file)}, { deferred: true })`,
      `  log.info({ sessionId: "s1" }, "first")`,
      `  const before = require("node:fs").readFileSync(${JSON.stringify(file)}, "utf8").length`,
      `  log.warn({}, "second")`,
      `  process.stdout.write(String(before))`,
      `})`
    ].join("\n")
    const out = execFileSync(process.execPath, ["--conditions=@dsh/source", "-e", script], { encoding: "utf8", env: { ...process.env, DSH_LOG_LEVEL: "info" } })
    expect(out).toBe("0") // nothing written while the command starts
    const [first, second] = lines(file)
    expect(Object.keys(first!)).toEqual(["level", "time", "pid", "sessionId", "msg"])
    expect(first).toMatchObject({ level: 30, sessionId: "s1", msg: "first" })
    expect(second).toMatchObject({ level: 40, msg: "second" })
    expect(new Date(first!.time as string).toISOString()).toBe(first!.time)
    expect(first!.pid).not.toBe(process.pid)
  })
})
