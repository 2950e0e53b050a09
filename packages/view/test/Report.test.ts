import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { FileSessionStore } from "@dsh/session"
import { Effect } from "effect"
import { beforeAll, describe, expect, it } from "vitest"
import { ReportFile, ReportHtml, SessionReport } from "../src/index.ts"
import { chromiumPath, headless } from "./chromium.ts"
import { runSampleSession } from "./sample.ts"

/**
 * The HTML report of a real session (harness, spawn backend, Read tool, scripted model, file
 * store): what it holds, that it fetches nothing and escapes every transcript string, and what
 * headless Chromium makes of it (its DOM, and a screenshot written under test/__output__/).
 */
const OUTPUT = join(import.meta.dirname, "__output__")
let report: SessionReport.SessionReport
let html: string
let file: string

beforeAll(async () => {
  const home = mkdtempSync(join(tmpdir(), "dsh-report-home-"))
  const cwd = mkdtempSync(join(tmpdir(), "dsh-report-cwd-"))
  const { id } = await Effect.runPromise(runSampleSession(home, cwd))
  report = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const store = yield* FileSessionStore.make({ home })
    // One child archived: the report reads it from the archive.
    const session = yield* store.open(id)
    yield* session.archiveChild("explore-2")
    return yield* SessionReport.loadSessionReport(session)
  })))
  html = ReportHtml.renderReportHtml(report)
  mkdirSync(OUTPUT, { recursive: true })
  file = join(OUTPUT, "report.html")
  writeFileSync(file, html)
}, 60_000)

describe("the session report", () => {
  it("holds every agent of the tree with its status, runs, tokens and transcript", () => {
    const byHandle = Object.fromEntries(report.agents.map((a) => [a.handle, a]))
    expect(Object.keys(byHandle).sort()).toEqual(["explore-1", "explore-2", "explore-3", "explore-4", "explore-5", "main"])
    expect(byHandle["explore-2"]).toMatchObject({ status: "failed", archived: true })
    expect(report.agents.map((a) => a.index)).toEqual([0, 1, 2, 3, 4, 5])
    expect(byHandle["explore-5"]).toMatchObject({ parent: "explore-3", depth: 2, status: "completed" })
    expect(byHandle["explore-1"]?.usage.totalTokens).toBe(365)
    expect(byHandle["explore-2"]?.records.length, "an archived transcript is read from the archive").toBeGreaterThan(0)
    for (const a of report.agents) expect(a.runs.length, a.handle).toBeGreaterThan(0)
    const run = byHandle["explore-1"]!.runs[0]!
    expect(run.startedAt).toBeGreaterThanOrEqual(run.queuedAt)
    expect(run.endedAt).toBeGreaterThanOrEqual(run.startedAt!)
    expect(report.totals.usage.totalTokens).toBe(report.agents.reduce((n, a) => n + a.usage.totalTokens, 0))
    expect(report.totals.byStatus).toEqual({ completed: 4, failed: 1 })
  })

  it("is one self-contained page: nothing to fetch, every transcript string escaped", () => {
    expect(html).toContain("Content-Security-Policy\" content=\"default-src 'none'")
    expect(html).not.toMatch(/\b(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i)
    expect(html).not.toMatch(/@import|url\(/)
    expect(html).not.toContain("<script>alert")
    expect(html).toContain("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;")
    expect(html).toContain("&lt;b&gt;ship&lt;/b&gt; &amp; &quot;tell&quot; nobody")
    expect(html.match(/<script>/g)).toHaveLength(1)
  })

  it("shows tool calls and permission decisions in the transcripts", () => {
    expect(html).toMatch(/class="rec rec-tool-call"[^>]*>.*?<code>Read<\/code>/)
    expect(html).toMatch(/class="rec rec-permission"[^>]*>.*?<code>Bash\(rm -rf build\)<\/code> <span class="decision d-denied">denied<\/span> via rule \(deny: Bash\(rm -rf \*\)\)/)
  })

  it("renders in headless Chromium: every child's handle and status is in the DOM, and a screenshot is taken", () => {
    const chromium = chromiumPath()
    if (chromium === undefined) {
      console.log("skipped: no chromium on this machine (apt-get install chromium)")
      return
    }
    const url = pathToFileURL(file).href
    const dom = headless(chromium, url, ["--dump-dom"])
    expect(dom.status, dom.stderr).toBe(0)
    for (const a of report.agents) {
      expect(dom.stdout, `${a.handle} in the tree`).toContain(`<li class="node" data-handle="${a.handle}" data-status="${a.status}">`)
      expect(dom.stdout, `${a.handle} on the timeline`).toContain(`<div class="row" data-handle="${a.handle}" data-status="${a.status}">`)
      expect(dom.stdout, `${a.handle}'s transcript`).toMatch(new RegExp(`<details class="transcript" id="t-${a.handle}" data-handle="${a.handle}" data-status="${a.status}">`))
    }
    expect(dom.stdout).toContain("&lt;script&gt;alert")
    const screenshot = join(OUTPUT, "report.png")
    const shot = headless(chromium, url, [`--screenshot=${screenshot}`, "--window-size=1280,1800", "--hide-scrollbars"])
    expect(shot.status, shot.stderr).toBe(0)
    expect(existsSync(screenshot)).toBe(true)
    expect(statSync(screenshot).size).toBeGreaterThan(10_000)
    console.log(`report screenshot: ${screenshot}`)
  }, 120_000)
})

describe("writeReportHtml", () => {
  it("replaces an earlier report whole, owner-only; a directory that does not exist is the caller's to fix", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dsh-report-out-"))
    const path = join(dir, "report.html")
    writeFileSync(path, "an older report")
    await Effect.runPromise(ReportFile.writeReportHtml(path, report))
    expect(readFileSync(path, "utf8")).toBe(html)
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(readdirSync(dir)).toEqual(["report.html"])
    const missing = await Effect.runPromise(Effect.flip(ReportFile.writeReportHtml(join(dir, "no", "such", "report.html"), report)))
    expect(missing).toMatchObject({ _tag: "ReportWriteError", badPath: true })
    expect(missing.message).toContain("cannot write it (ENOENT)")
  })
})

