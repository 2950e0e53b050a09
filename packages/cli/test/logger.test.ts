import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { fileLogger } from "../src/Logger.ts"

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
