import { AgentCatalog, type AgentDefinition, AgentHost } from "@dsh/agent"
import { Harness } from "@dsh/harness"
import { ModelRegistry } from "@dsh/llm"
import { ScriptedAdapter } from "@dsh/llm-scripted"
import { FileSessionStore } from "@dsh/session"
import { SpawnProvider } from "@dsh/subagent-inprocess"
import { DshTelemetry } from "@dsh/telemetry"
import { Effect, Layer } from "effect"
import { mkdtempSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

// A stand-in for your collector: an OTLP/HTTP receiver that keeps the span names and trace ids.
const spans: Array<{ name: string; traceId: string }> = []
const collector = createServer((req, res) => {
  let body = ""
  req.on("data", (chunk) => (body += chunk))
  req.on("end", () => {
    const data = JSON.parse(body) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ name: string; traceId: string }> }> }> }
    for (const rs of data.resourceSpans) for (const ss of rs.scopeSpans) spans.push(...ss.spans)
    res.end("{}")
  })
})
await new Promise<void>((ready) => collector.listen(0, "127.0.0.1", ready))
const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`

const agent = (name: string, systemPrompt: string): AgentDefinition.AgentDefinition =>
  ({ name, description: `the ${name}`, systemPrompt, override: false, scope: "runtime", source: "example" })
const script = {
  rules: [
    { when: { system: "^You research" }, reply: { text: "The answer is 42." } },
    { when: { step: 0 }, reply: { toolCalls: [{ name: "subagent", arguments: { description: "find it", prompt: "What is the answer?", agent: "researcher" } }] } },
    { reply: { text: "{{lastTool|firstLine}}" } }
  ]
}
const host = Harness.layer({
  agents: () => Effect.succeed(AgentCatalog.staticCatalog({ main: agent("lead", "You lead."), delegates: [agent("researcher", "You research one question.")] })),
  backends: [SpawnProvider.SpawnProvider],
  tools: [],
  model: "scripted:example"
}).pipe(Layer.provide(Layer.mergeAll(
  FileSessionStore.layer({ home: mkdtempSync(join(tmpdir(), "dsh-telemetry-")) }),
  ModelRegistry.layerWith([ScriptedAdapter.make({ scripts: { example: script } })])
)))

// Or `DshTelemetry.fromEnv(process.env)`: OTEL_EXPORTER_OTLP_ENDPOINT, _HEADERS, _PROTOCOL, OTEL_SERVICE_NAME, …
const telemetry = DshTelemetry.layer({ endpoint, protocol: "http/json", serviceName: "my-harness" })

const program = Effect.gen(function*() {
  const dsh = yield* AgentHost.AgentHost
  const session = yield* dsh.createSession({ cwd: process.cwd() })
  console.log((yield* dsh.prompt({ sessionId: session.id, prompt: "What is the answer?" })).result) // The answer is 42.
})
// The last batch is flushed when the layer closes (bounded: an unreachable collector never holds the run).
await Effect.runPromise(program.pipe(Effect.provide(Layer.merge(host, telemetry))))
collector.close()

const genAi = spans.filter((s) => /^(invoke_agent|chat|execute_tool) /.test(s.name))
console.log([...new Set(genAi.map((s) => s.name))].sort().join(", ")) // chat example, execute_tool subagent, invoke_agent lead, invoke_agent researcher
console.log(`one trace: ${new Set(genAi.map((s) => s.traceId)).size === 1}`) // one trace: true
