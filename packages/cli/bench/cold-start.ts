// CLI cold start to the first model request: spawn `dsh run` against a local OpenAI-style
// server and time the moment its first request arrives; compare with `node -e 0`.
import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

const ROOT = resolve(import.meta.dirname, "../../..")
const MAIN = join(ROOT, "packages/cli/dist/main.js")
const RUNS = 15

const median = (xs: Array<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)] ?? Number.NaN
}

const timeProcess = (args: Array<string>, env: Record<string, string>, until: Promise<void> | undefined) =>
  new Promise<number>((done) => {
    const start = performance.now()
    const child = spawn(process.execPath, args, { env, stdio: "ignore" })
    if (until === undefined) child.on("exit", () => done(performance.now() - start))
    else {
      void until.then(() => done(performance.now() - start))
      child.on("exit", () => undefined)
    }
  })

let notify: (() => void) | undefined
const server = await FakeOpenAIServer.startFakeOpenAIServer({
  respond: () => {
    notify?.()
    return { text: "ok" }
  }
})
const home = mkdtempSync(join(tmpdir(), "dsh-bench-home-"))
const env = { PATH: process.env.PATH ?? "", DSH_HOME: home, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-bench" }
const baseline: Array<number> = []
const cli: Array<number> = []
for (let i = 0; i < RUNS; i++) {
  baseline.push(await timeProcess(["-e", "0"], env, undefined))
  const first = new Promise<void>((resolveFirst) => (notify = resolveFirst))
  cli.push(await timeProcess([MAIN, "run", "--model", "openai:bench", "hello"], env, first))
  await new Promise((r) => setTimeout(r, 50)) // let the finished run exit before the next sample
}
await server.close()
const b = median(baseline)
const c = median(cli)
console.log(`cli cold start to first model request: median ${c.toFixed(1)} ms; node -e 0: median ${b.toFixed(1)} ms; ratio ${(c / b).toFixed(2)}x (target <= 3x), ${RUNS} runs`)
console.log(JSON.stringify({ bench: "cli-cold-start", runs: RUNS, medianMs: Number(c.toFixed(1)), nodeBaselineMs: Number(b.toFixed(1)), ratio: Number((c / b).toFixed(2)), target: 3 }))
