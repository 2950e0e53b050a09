// Exit after the answer: `dsh run --output-format stream-json` (resident off) delegating to a warm
// ACP child, timed from the main turn's `turn-end` line (the answer is complete) to its exit;
// compared with the whole run of `node -e 0` measured in the same loop. Two children: the fake
// vendor agent that ignores EOF and SIGTERM (the worst case: only SIGKILL ends it) and `acp:dsh`.
import { FakeAcpAgent } from "@dsh/subagent-acp/testing"
import { spawn } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

const ROOT = resolve(import.meta.dirname, "../../..")
const MAIN = join(ROOT, "packages/cli/dist/main.js")
const RUNS = 9

const median = (xs: Array<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)] ?? Number.NaN
}

/** Milliseconds from the last `turn-end` line on stdout to the exit (from the spawn, for the baseline). */
const exitAfterAnswer = (args: Array<string>, env: Record<string, string>) =>
  new Promise<number>((done) => {
    let ended = performance.now()
    let pending = ""
    const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "ignore"] })
    child.stdout.on("data", (chunk: Buffer) => {
      const lines = (pending + chunk.toString()).split("\n")
      pending = lines.pop() ?? ""
      if (lines.some((l) => l.includes("\"type\":\"turn-end\""))) ended = performance.now()
    })
    child.on("exit", () => done(performance.now() - ended))
  })

const dir = mkdtempSync(join(tmpdir(), "dsh-bench-exit-"))
const script = join(dir, "script.json")
writeFileSync(script, JSON.stringify({
  rules: [
    { when: { lastUser: "^delegate (\\S+) (.*)$", step: 0 }, reply: { toolCalls: [{ name: "subagent", arguments: { description: "bench", prompt: "{{2}}", agent: "{{1}}" } }] } },
    { when: { lastUser: "^delegate", step: 1 }, reply: { text: "Parent got: {{lastTool|firstLine}}" } },
    { when: { lastUser: "^hello" }, reply: { text: "hi" } }
  ]
}))
const home = mkdtempSync(join(tmpdir(), "dsh-bench-home-"))
writeFileSync(join(home, "config.toml"), [
  "[acp.agents.stubborn]",
  `command = ${JSON.stringify(process.execPath)}`,
  `args = ${JSON.stringify([FakeAcpAgent.fakeAcpAgentScript(), ...FakeAcpAgent.fakeAcpAgentArgs({ exitOnEof: false, ignoreSigterm: true })])}`,
  ""
].join("\n"))
const env = { PATH: process.env.PATH ?? "", HOME: home, DSH_HOME: home, DSH_RESIDENT: "0" }
const cases = { stubborn: "delegate acp:stubborn CONFORMANCE echo hi", dsh: "delegate acp:dsh hello" } as const
const samples: Record<string, Array<number>> = { baseline: [], stubborn: [], dsh: [] }
for (let i = 0; i < RUNS; i++) {
  samples.baseline!.push(await exitAfterAnswer(["-e", "0"], env))
  for (const [name, prompt] of Object.entries(cases)) {
    samples[name]!.push(await exitAfterAnswer([MAIN, "run", "--allow", "subagent", "--output-format", "stream-json", "--model", `scripted:${script}`, prompt], env))
  }
}
const b = median(samples.baseline!)
for (const name of Object.keys(cases)) {
  const m = median(samples[name]!)
  console.log(`dsh run exit after its answer, warm acp:${name} child: median ${m.toFixed(1)} ms; node -e 0 (whole run): median ${b.toFixed(1)} ms; ratio ${(m / b).toFixed(2)}x (target: under 300 ms), ${RUNS} runs`)
  console.log(JSON.stringify({ bench: `cli-prompt-exit-${name}`, runs: RUNS, medianMs: Number(m.toFixed(1)), nodeBaselineMs: Number(b.toFixed(1)), ratio: Number((m / b).toFixed(2)), targetMs: 300 }))
}
