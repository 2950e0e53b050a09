import { TranscriptView } from "@dsh/agent"
import type { Events } from "@dsh/core"
import { DemoScript } from "@dsh/llm-scripted"
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { Writable } from "node:stream"
import { fileURLToPath } from "node:url"
import { parseFlags } from "../Args.ts"
import type { CliContext } from "../Context.ts"
import { RunOutput } from "@dsh/harness"
import { executeRun } from "./run.ts"

/** The repository this CLI was built in: the demo tours its files. */
const repositoryRoot = (): string | undefined => {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, "pnpm-workspace.yaml"))) return dir
    dir = dirname(dir)
  }
  return undefined
}

/** The demo's trace: the main agent's tool calls and its children starting and ending. */
const TRACED = new Set<Events.AgentEvent["type"]>(["tool-call", "subagent-start", "subagent-end"])

/** The demo prints its own closing block, so the plain result output is dropped. */
const discard = () => new Writable({ write: (_chunk, _encoding, callback) => callback() })

/** `dsh demo`: the bundled demonstration on the embedded scripted model, with a live trace. */
export const demoCommand = (args: ReadonlyArray<string>, ctx: CliContext) =>
  Effect.gen(function*() {
    const { values } = yield* parseFlags(args, { cwd: { type: "string" }, model: { type: "string" } }, "demo")
    const cwd = values.cwd !== undefined ? resolve(ctx.cwd, values.cwd) : repositoryRoot() ?? ctx.cwd
    yield* RunOutput.writeLine(ctx.stdout, `dsh demo: ${DemoScript.DEMO_PROMPT}\n(working in ${cwd}, model ${values.model ?? "scripted"})\n`)
    const summary = yield* executeRun({
      prompt: DemoScript.DEMO_PROMPT,
      format: "text",
      cwd,
      model: values.model ?? "scripted",
      onEvent: (event) => {
        const line = TRACED.has(event.type) ? TranscriptView.eventLine(event) : undefined
        return line === undefined ? Effect.void : RunOutput.writeLine(ctx.stdout, `  ${line}`)
      }
    }, { ...ctx, stdout: discard() })
    yield* RunOutput.writeLine(ctx.stdout, `\n${summary.result}\n\n(session ${summary.sessionId}: ${summary.usage.totalTokens} tokens)`)
  })
