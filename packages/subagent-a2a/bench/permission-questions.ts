// What a permission question costs an A2A client of serveA2a, on 127.0.0.1 with a scripted model:
// a turn whose tool call is denied without asking (no extension: the baseline), against the same
// turn opted in (send → input-required, answer "allow" → completed), with the SDK's own client.
//   node --conditions=@dsh/source packages/subagent-a2a/bench/permission-questions.ts [runs]
import { type Message, Role, TaskState } from "@a2a-js/sdk"
import { ClientFactory, ServiceParameters, withA2AExtensions } from "@a2a-js/sdk/client"
import { AgentCatalog } from "@dsh/agent"
import { Harness } from "@dsh/harness"
import { ModelRegistry } from "@dsh/llm"
import { ScriptedAdapter } from "@dsh/llm-scripted"
import { FileSessionStore } from "@dsh/session"
import { LocalProcessLauncher } from "@dsh/subprocess"
import { Tool } from "@dsh/tools"
import { Effect, Layer } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { z } from "zod"
import { PERMISSION_QUESTIONS_EXTENSION, serveA2a } from "../src/serve.ts"

const RUNS = Number(process.argv[2] ?? 20)
const temp = (p: string) => mkdtempSync(join(tmpdir(), p))
const home = temp("dsh-a2a-bench-")
const deploy = Tool.defineTool({
  name: "deploy",
  description: "deploys a target",
  parameters: z.object({ target: z.string().describe("where") }),
  permission: { kind: "execute", specifier: (p) => p.target },
  execute: ({ target }) => Effect.succeed(`deployed ${target}`)
})
const script = { rules: [{ when: { step: 0 }, reply: { toolCalls: [{ name: "deploy", arguments: { target: "prod" } }] } }, { reply: { text: "done: {{lastTool|firstLine}}" } }] }
const host = Harness.layer({
  agents: () => Effect.succeed(AgentCatalog.staticCatalog({ main: { name: "lead", description: "leads", systemPrompt: "You lead.", override: false, scope: "runtime", source: "bench" } })),
  backends: [],
  tools: [deploy],
  permissions: { ask: ["deploy"] },
  model: "scripted:lead"
}).pipe(Layer.provide(Layer.mergeAll(FileSessionStore.layer({ home }), ModelRegistry.layerWith([ScriptedAdapter.make({ scripts: { lead: script } })]), LocalProcessLauncher.layer())))

const message = (text: string, at: { taskId?: string; contextId?: string } = {}): Message => ({
  messageId: crypto.randomUUID(),
  contextId: at.contextId ?? "",
  taskId: at.taskId ?? "",
  role: Role.ROLE_USER,
  parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: []
})
const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
  const { url } = yield* serveA2a({ host: "127.0.0.1", port: 0, contextsDir: join(home, "contexts"), create: { cwd: temp("dsh-a2a-bench-cwd-") } })
  const client = yield* Effect.promise(() => new ClientFactory().createFromUrl(url))
  const optIn = { serviceParameters: ServiceParameters.create(withA2AExtensions(PERMISSION_QUESTIONS_EXTENSION)) }
  const send = (m: Message, options?: typeof optIn) =>
    client.sendMessage({ tenant: "", message: m, configuration: undefined, metadata: undefined }, options).then((r) => {
      if (!("id" in r) || "messageId" in r) throw new Error("expected a task")
      return r
    })
  const denied: Array<number> = []
  const asked: Array<number> = []
  const answered: Array<number> = []
  yield* Effect.promise(async () => {
    for (let i = 0; i <= RUNS; i++) {
      let t = performance.now()
      const d = await send(message("ship it"))
      if (d.status?.state !== TaskState.TASK_STATE_COMPLETED) throw new Error("the baseline did not complete")
      const baseline = performance.now() - t
      t = performance.now()
      const q = await send(message("ship it"), optIn)
      if (q.status?.state !== TaskState.TASK_STATE_INPUT_REQUIRED) throw new Error("no question")
      const question = performance.now() - t
      t = performance.now()
      const a = await send(message("allow", { taskId: q.id, contextId: q.contextId }), optIn)
      if (a.status?.state !== TaskState.TASK_STATE_COMPLETED) throw new Error("the answer did not complete the task")
      if (i === 0) continue // warm-up
      denied.push(baseline)
      asked.push(question)
      answered.push(performance.now() - t)
    }
  })
  const base = median(denied)
  const total = median(asked.map((q, i) => q + answered[i]!))
  console.log(`${RUNS} runs: denied without asking (baseline) median ${base.toFixed(1)} ms; opted in: to input-required ${median(asked).toFixed(1)} ms, answer to completed ${median(answered).toFixed(1)} ms, both ${total.toFixed(1)} ms (${(total / base).toFixed(2)}x the baseline)`)
  console.log(JSON.stringify({ bench: "a2a-permission-questions", runs: RUNS, baselineMs: Number(base.toFixed(1)), toQuestionMs: Number(median(asked).toFixed(1)), answerToCompletedMs: Number(median(answered).toFixed(1)), ratio: Number((total / base).toFixed(2)) }))
}).pipe(Effect.provide(host))))
