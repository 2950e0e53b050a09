// What a PreToolUse hook costs a turn: 20 tool calls of a scripted model (Read of a one-line file) through
// `runTurn` and the Toolbox, with no hooks, with one no-op callback hook, and with one no-op command hook
// (`true`, a real `sh` process per call through the ProcessLauncher). Ratios of medians.
//   node --conditions=@dsh/source packages/cli/bench/hooks.ts [runs]
import { TurnLoop } from "@dsh/agent"
import { ScriptedModel } from "@dsh/llm-scripted"
import { LocalProcessLauncher } from "@dsh/subprocess"
import { Hooks, Toolbox } from "@dsh/tools"
import { CommandHooks, Read } from "@dsh/tools-builtin"
import { Effect } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const CALLS = 20
const RUNS = Number(process.argv[2] ?? 9)

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN

// A cheap real tool: Read of a one-line file.
const cwd = mkdtempSync(join(tmpdir(), "dsh-hooks-bench-"))
writeFileSync(join(cwd, "a.txt"), "hello\n")
const model = ScriptedModel.make({
  rules: [
    ...Array.from({ length: CALLS }, (_, i) => ({ when: { step: i }, reply: { toolCalls: [{ name: "Read", arguments: { path: "a.txt" } }] } })),
    { reply: { text: "done" } }
  ]
})
const toolbox = Toolbox.make({ tools: [Read.ReadTool] })
const launcher = LocalProcessLauncher.make()

const variants: ReadonlyArray<readonly [string, ReadonlyArray<Hooks.HookRegistration>]> = [
  ["none", []],
  ["callback", [{ event: "PreToolUse", name: "noop", run: () => Effect.succeed({}) }]],
  ["command", [CommandHooks.commandHook(launcher, { event: "PreToolUse", command: "true" })]]
]

const turn = (registrations: ReadonlyArray<Hooks.HookRegistration>) => {
  const hooks = registrations.length === 0 ? Hooks.noHooks : Hooks.make(registrations, { sessionId: "bench" })
  return TurnLoop.runTurn({
    agent: "main",
    cwd,
    model,
    systemPrompt: "bench",
    toolbox: Effect.succeed(toolbox),
    history: [],
    prompt: "go",
    turn: 0,
    onEvent: () => Effect.void
  }).pipe(Effect.provideService(Hooks.Hooks, hooks))
}

const times: Record<string, Array<number>> = {}
// Warm-up rounds (JIT, the launcher's first spawns), each checked.
for (let w = 0; w < 3; w++) {
  for (const [name, registrations] of variants) {
    const check = await Effect.runPromise(turn(registrations))
    if (check.status !== "completed" || check.result !== "done") throw new Error(`${name}: the turn did not complete (${check.status}: ${check.error ?? ""})`)
  }
}
// Interleaved, so drift in the machine's load hits every variant alike.
for (let r = 0; r < RUNS; r++) {
  for (const [name, registrations] of variants) {
    const start = performance.now()
    await Effect.runPromise(turn(registrations))
    ;(times[name] ??= []).push(performance.now() - start)
  }
}
const none = median(times.none!)
const callback = median(times.callback!)
const command = median(times.command!)
console.log(`${CALLS} tool calls per turn, median of ${RUNS}: no hooks ${none.toFixed(1)} ms; one no-op callback PreToolUse hook ${callback.toFixed(1)} ms (${(callback / none).toFixed(2)}×); one no-op command hook (sh -c true) ${command.toFixed(1)} ms (${(command / none).toFixed(2)}×, ${((command - none) / CALLS).toFixed(2)} ms per call)`)
console.log(JSON.stringify({
  bench: "hooks-pre-tool-use",
  calls: CALLS,
  runs: RUNS,
  noneMs: Number(none.toFixed(1)),
  callbackMs: Number(callback.toFixed(1)),
  commandMs: Number(command.toFixed(1)),
  callbackRatio: Number((callback / none).toFixed(2)),
  commandRatio: Number((command / none).toFixed(2)),
  commandPerCallMs: Number(((command - none) / CALLS).toFixed(2))
}))
