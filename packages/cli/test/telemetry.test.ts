import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { makeHome, runDsh, tempDir } from "./support.ts"

/** One request the local OTLP/HTTP receiver got. */
interface Received {
  readonly url: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

interface Receiver {
  readonly url: string
  readonly requests: Array<Received>
  /** Resolves once every connection has ended: every request the runs sent is in `requests`. */
  readonly close: () => Promise<void>
}

const servers: Array<Server> = []
afterEach(() => {
  for (const s of servers.splice(0)) s.closeAllConnections()
})

/** A local OTLP/HTTP receiver on 127.0.0.1; `answer: false` reads the request and never answers. */
const receiver = (options: { readonly answer?: boolean } = {}): Promise<Receiver> =>
  new Promise((ready) => {
    const requests: Array<Received> = []
    const server = createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", () => {
        requests.push({ url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") })
        if (options.answer !== false) res.writeHead(200, { "content-type": "application/json" }).end("{}")
      })
    })
    servers.push(server)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      ready({
        url: `http://127.0.0.1:${port}`,
        requests,
        close: () => new Promise((done) => server.close(() => done()))
      })
    })
  })

interface Attribute {
  readonly key: string
  readonly value: { readonly stringValue?: string; readonly intValue?: string | number; readonly boolValue?: boolean; readonly arrayValue?: { readonly values: ReadonlyArray<{ readonly stringValue?: string }> } }
}
interface Span {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string | undefined
  readonly name: string
  readonly attributes: ReadonlyArray<Attribute>
  readonly service: string
  readonly resource: ReadonlyArray<Attribute>
}

const attr = (attributes: ReadonlyArray<Attribute>, key: string): unknown => {
  const v = attributes.find((a) => a.key === key)?.value
  if (v === undefined) return undefined
  if (v.arrayValue !== undefined) return v.arrayValue.values.map((x) => x.stringValue)
  return v.stringValue ?? (v.intValue === undefined ? v.boolValue : Number(v.intValue))
}

/** Every span of the `http/json` trace exports received. */
const spansOf = (requests: ReadonlyArray<Received>): Array<Span> =>
  requests.filter((r) => r.url === "/v1/traces").flatMap((r) => {
    const data = JSON.parse(r.body) as {
      resourceSpans: ReadonlyArray<{ resource: { attributes: ReadonlyArray<Attribute> }; scopeSpans: ReadonlyArray<{ spans: ReadonlyArray<Omit<Span, "service" | "resource">> }> }>
    }
    return data.resourceSpans.flatMap((rs) =>
      rs.scopeSpans.flatMap((ss) => ss.spans.map((s) => ({ ...s, service: String(attr(rs.resource.attributes, "service.name")), resource: rs.resource.attributes })))
    )
  })

/** The main agent delegates at once to an in-process `explore`, an `acp:dsh` and an `sdk:dsh` child process. */
const SCRIPT = {
  rules: [
    {
      when: { lastUser: "^go$", step: 0 },
      reply: {
        text: "Delegating.",
        toolCalls: [
          { name: "subagent", arguments: { agent: "explore", description: "in process", prompt: "INPROC look around" } },
          { name: "subagent", arguments: { agent: "acp:dsh", description: "over acp", prompt: "ACPCHILD look around" } },
          { name: "subagent", arguments: { agent: "sdk:dsh", description: "over the sdk", prompt: "SDKCHILD look around" } }
        ]
      }
    },
    { when: { lastUser: "^INPROC" }, reply: { text: "the inproc private answer", usage: { input: 30, output: 5 } } },
    { when: { lastUser: "^ACPCHILD" }, reply: { text: "the acp private answer", usage: { input: 40, output: 6 } } },
    { when: { lastUser: "^SDKCHILD" }, reply: { text: "the sdk private answer", usage: { input: 45, output: 7 } } },
    { when: { step: 1 }, reply: { text: "all done", usage: { input: 50, output: 2 } } }
  ],
  fallback: { text: "unexpected" }
}

/**
 * The acp:dsh child is closed in the background and may still be flushing its spans when the
 * parent has exited: wait until its process (pid from its meta.json) is gone.
 */
const childrenExited = async (home: string): Promise<void> => {
  const sessions = readdirSync(join(home, "sessions"))
  for (const handle of ["acp-dsh-1", "sdk-dsh-1"]) {
    const meta = JSON.parse(readFileSync(join(home, "sessions", sessions[0]!, "agents", handle, "meta.json"), "utf8")) as { pid?: number }
    while (meta.pid !== undefined && alive(meta.pid)) await new Promise((tick) => setTimeout(tick, 20))
  }
}
const alive = (pid: number) => {
    try {
      process.kill(pid, 0)
      return true
    } catch {
      return false
    }
  }

const delegate = async (env: Record<string, string>) => {
  const dir = tempDir("dsh-otel-")
  const script = join(dir, "script.json")
  writeFileSync(script, JSON.stringify(SCRIPT))
  const home = makeHome()
  const r = await runDsh(["run", "-p", "--model", `scripted:${script}`, "--allow", "subagent", "--output-format", "json", "go"], {
    env: { DSH_HOME: home, DSH_RESIDENT: "0", ...env },
    cwd: dir
  })
  if (r.code === 0) await childrenExited(home)
  return { ...r, home }
}

/** The run's answer, intact: telemetry never changes what a run prints. */
const expectIntact = (r: { readonly code: number | null; readonly stdout: string; readonly stderr: string }) => {
  expect(r.code, r.stderr).toBe(0)
  const out = JSON.parse(r.stdout) as { status: string; result: string; subagents: ReadonlyArray<{ name: string; status: string }> }
  expect(out.status).toBe("completed")
  expect(out.result).toBe("all done")
  expect(out.subagents.map((s) => [s.name, s.status]).sort()).toEqual([["acp-dsh-1", "completed"], ["explore-1", "completed"], ["sdk-dsh-1", "completed"]])
}

describe("dsh exports OpenTelemetry traces by the standard environment", () => {
  it("one trace for the main agent, an in-process child and acp:dsh and sdk:dsh child processes, in GenAI conventions", async () => {
    const otlp = await receiver()
    const r = await delegate({
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_HEADERS: "x-team=agents,x-note=a%20b",
      OTEL_SERVICE_NAME: "dsh-under-test",
      OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=test"
    })
    expectIntact(r)
    await otlp.close()
    expect(otlp.requests.length).toBeGreaterThan(0)
    for (const req of otlp.requests) {
      expect(req.headers["content-type"]).toBe("application/json")
      expect(req.headers["x-team"]).toBe("agents")
      expect(req.headers["x-note"]).toBe("a b")
    }
    const spans = spansOf(otlp.requests)
    const byId = new Map(spans.map((s) => [s.spanId, s]))
    const ancestors = (s: Span): Array<Span> => {
      const out: Array<Span> = []
      for (let p = s.parentSpanId; p !== undefined && p !== "" && byId.has(p); p = byId.get(p)!.parentSpanId) out.push(byId.get(p)!)
      return out
    }
    for (const s of spans) {
      expect(s.service).toBe("dsh-under-test")
      expect(attr(s.resource, "deployment.environment")).toBe("test")
    }

    const agents = spans.filter((s) => s.name.startsWith("invoke_agent "))
    const delegations = spans.filter((s) => s.name === "execute_tool subagent")
    expect(delegations).toHaveLength(3)
    const [main, ...others] = agents.filter((s) => attr(s.attributes, "dsh.agent.handle") === "main").sort((a, b) => ancestors(a).length - ancestors(b).length)
    expect(main).toBeDefined()
    // The acp:dsh and sdk:dsh children's own main agents, each in its process, below a delegation.
    expect(others).toHaveLength(2)
    const inProcess = agents.find((s) => attr(s.attributes, "dsh.agent.handle") === "explore-1")
    expect(inProcess?.name).toBe("invoke_agent explore")
    expect(attr(inProcess!.attributes, "gen_ai.agent.name")).toBe("explore")
    expect(attr(inProcess!.attributes, "dsh.backend")).toBe("spawn")

    // One trace id, and each child hangs below one of the main agent's `execute_tool subagent` spans.
    const trace = main!.traceId
    for (const s of [inProcess!, ...others, ...delegations]) expect(s.traceId).toBe(trace)
    for (const d of delegations) expect(ancestors(d)).toContain(main)
    for (const child of [inProcess!, ...others]) {
      const up = ancestors(child)
      expect(up.some((a) => delegations.includes(a)), child.name).toBe(true)
      expect(up).toContain(main)
    }
    // The delegations were let through by `--allow subagent`: the decision is on the span.
    for (const d of delegations) expect(attr(d.attributes, "dsh.permission.decision")).toBe("allow")

    // Model calls: `chat <model>` with the request model, usage and finish reason, in each agent.
    const chats = spans.filter((s) => s.name.startsWith("chat "))
    expect(chats.length).toBe(5)
    for (const c of chats) {
      expect(attr(c.attributes, "gen_ai.operation.name")).toBe("chat")
      expect(attr(c.attributes, "gen_ai.provider.name")).toBe("scripted")
      expect(String(attr(c.attributes, "gen_ai.request.model"))).toMatch(/script\.json$/)
      expect(attr(c.attributes, "gen_ai.response.finish_reasons")).toEqual([expect.stringMatching(/^(stop|tool-calls)$/)])
    }
    const inProcessChat = chats.find((c) => c.parentSpanId === inProcess!.spanId)
    expect(attr(inProcessChat!.attributes, "gen_ai.usage.input_tokens")).toBe(30)
    expect(attr(inProcessChat!.attributes, "gen_ai.usage.output_tokens")).toBe(5)
    // Without DSH_OTEL_CAPTURE_CONTENT no prompt or completion text leaves the machine.
    for (const req of otlp.requests) {
      expect(req.body).not.toContain("private answer")
      expect(req.body).not.toContain("look around")
    }
  })

  it("prompt and completion text only with DSH_OTEL_CAPTURE_CONTENT=1", async () => {
    const otlp = await receiver()
    const r = await delegate({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${otlp.url}/custom/traces`, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", DSH_OTEL_CAPTURE_CONTENT: "1" })
    expectIntact(r)
    await otlp.close()
    expect(new Set(otlp.requests.map((q) => q.url))).toEqual(new Set(["/custom/traces"]))
    const spans = spansOf(otlp.requests.map((q) => ({ ...q, url: "/v1/traces" })))
    const outputs = spans.flatMap((s) => s.name.startsWith("chat ") ? [String(attr(s.attributes, "gen_ai.output.messages"))] : [])
    expect(outputs.some((o) => o.includes("the inproc private answer"))).toBe(true)
    // The acp:dsh child process got the setting too.
    expect(outputs.some((o) => o.includes("the acp private answer"))).toBe(true)
    expect(outputs.some((o) => o.includes("the sdk private answer"))).toBe(true)
    const inputs = spans.flatMap((s) => s.name.startsWith("chat ") ? [String(attr(s.attributes, "gen_ai.input.messages"))] : [])
    expect(inputs.some((i) => i.includes("INPROC look around"))).toBe(true)
  })

  it("http/protobuf by default", async () => {
    const otlp = await receiver()
    expectIntact(await delegate({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url }))
    await otlp.close()
    expect(otlp.requests.length).toBeGreaterThan(0)
    for (const req of otlp.requests) {
      expect(req.url).toBe("/v1/traces")
      expect(req.headers["content-type"]).toBe("application/x-protobuf")
    }
  })

  it("without an endpoint nothing is sent", async () => {
    const otlp = await receiver()
    // Only the settings that need an endpoint: without one they change nothing.
    expectIntact(await delegate({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", OTEL_SERVICE_NAME: "dsh-quiet", DSH_OTEL_CAPTURE_CONTENT: "1" }))
    await otlp.close()
    expect(otlp.requests).toEqual([])
  })
})

describe("an endpoint that is down never fails a run", () => {
  it("a port that refuses connections: the run completes, one warning in the log", async () => {
    const otlp = await receiver()
    const url = otlp.url
    await otlp.close() // the port is free now: connections are refused
    const r = await delegate({ OTEL_EXPORTER_OTLP_ENDPOINT: url })
    expectIntact(r)
    const warnings = readFileSync(join(r.home, "logs", "dsh.log"), "utf8").split("\n").filter((l) => l.includes("telemetry: export"))
    expect(warnings.length).toBeLessThanOrEqual(1)
  })

  it("a receiver that never answers: the run completes and its output is intact", async () => {
    const otlp = await receiver({ answer: false })
    expectIntact(await delegate({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" }))
  })
})
