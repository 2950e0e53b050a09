import { AgentCatalog, type AgentDefinition, AgentHost } from "@dsh/agent"
import { Harness } from "@dsh/harness"
import { ModelRegistry } from "@dsh/llm"
import { ScriptedAdapter } from "@dsh/llm-scripted"
import { FileSessionStore } from "@dsh/session"
import { SpawnProvider } from "@dsh/subagent-inprocess"
import { Effect, Layer } from "effect"
import { mkdtempSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { expect, it } from "vitest"
import { DshTelemetry } from "../src/index.ts"

interface Span {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly links: ReadonlyArray<{ readonly traceId: string; readonly spanId: string }>
}

const agent = (name: string, systemPrompt: string): AgentDefinition.AgentDefinition =>
  ({ name, description: `the ${name}`, systemPrompt, override: false, scope: "runtime", source: "test" })

it("a background child's run is a trace of its own, linked to the call that started it", async () => {
  const spans: Array<Span> = []
  const collector = createServer((req, res) => {
    let body = ""
    req.on("data", (c) => (body += c))
    req.on("end", () => {
      const data = JSON.parse(body) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<Span> }> }> }
      for (const rs of data.resourceSpans) for (const ss of rs.scopeSpans) spans.push(...ss.spans)
      res.end("{}")
    })
  })
  await new Promise<void>((ready) => collector.listen(0, "127.0.0.1", ready))
  const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`
  const script = {
    rules: [
      { when: { system: "^You research" }, reply: { text: "The answer is 42." } },
      { when: { lastUser: "^What", step: 0 }, reply: { toolCalls: [{ name: "subagent", arguments: { description: "find it", prompt: "What is the answer?", agent: "researcher", background: true } }] } },
      { reply: { text: "noted" } }
    ]
  }
  const host = Harness.layer({
    agents: () => Effect.succeed(AgentCatalog.staticCatalog({ main: agent("lead", "You lead."), delegates: [agent("researcher", "You research one question.")] })),
    backends: [SpawnProvider.SpawnProvider],
    tools: [],
    model: "scripted:bg"
  }).pipe(Layer.provide(Layer.mergeAll(
    FileSessionStore.layer({ home: mkdtempSync(join(tmpdir(), "dsh-telemetry-bg-")) }),
    ModelRegistry.layerWith([ScriptedAdapter.make({ scripts: { bg: script } })])
  )))
  const program = Effect.gen(function*() {
    const dsh = yield* AgentHost.AgentHost
    const session = yield* dsh.createSession({ cwd: process.cwd() })
    return yield* dsh.prompt({ sessionId: session.id, prompt: "What is the answer?" })
  })
  const result = await Effect.runPromise(program.pipe(Effect.provide(Layer.merge(host, DshTelemetry.layer({ endpoint, protocol: "http/json" })))))
  await new Promise<void>((done) => collector.close(() => done()))
  expect(result.subagents.map((s) => [s.name, s.status])).toEqual([["researcher-1", "completed"]])

  const call = spans.find((s) => s.name === "execute_tool subagent")!
  const lead = spans.find((s) => s.name === "invoke_agent lead")!
  const background = spans.find((s) => s.name === "background researcher-1")!
  const child = spans.find((s) => s.name === "invoke_agent researcher")!
  expect(call.traceId).toBe(lead.traceId)
  expect(background.traceId).not.toBe(lead.traceId)
  // The link names the delegation call (`Subagents.spawnBackground`, inside `execute_tool subagent`).
  expect(background.links).toHaveLength(1)
  const linked = spans.find((s) => s.spanId === background.links[0]!.spanId)!
  expect(linked.name).toBe("Subagents.spawnBackground")
  expect(linked.parentSpanId).toBe(call.spanId)
  expect(background.links[0]!.traceId).toBe(call.traceId)
  expect(child.traceId).toBe(background.traceId)
})
