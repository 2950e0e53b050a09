import { type Message, Role, TaskState } from "@a2a-js/sdk"
import { ClientFactory, ServiceParameters, withA2AExtensions } from "@a2a-js/sdk/client"
import { PERMISSION_QUESTIONS_EXTENSION } from "@dsh/subagent-a2a/serve"
import { serveEchoAgent } from "@dsh/subagent-a2a/testing"
import { type ChildProcess, spawn } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { DSH, makeHome, runDsh, tempDir } from "./support.ts"

// dsh and A2A as a user runs them: a dsh parent delegating to an agent served by the SDK's own
// server classes, and `dsh a2a` consumed by the SDK's own client; real HTTP on 127.0.0.1.

const closers: Array<() => Promise<void>> = []
const launched: Array<ChildProcess> = []
afterEach(async () => {
  for (const p of launched.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL")
  for (const close of closers.splice(0)) await close()
})

const echo = async (options: { streaming?: boolean } = {}) => {
  const server = await serveEchoAgent(options)
  closers.push(server.close)
  return server
}

/** The parent: `delegate AGENT PROMPT` → subagent, then its result; `continue AGENT HANDLE PROMPT` → subagent, send_message. */
const parentScript = () => {
  const file = join(tempDir("dsh-a2a-script-"), "script.json")
  writeFileSync(file, JSON.stringify({
    rules: [
      { when: { lastUser: "^delegate (\\S+) (.*)$", step: 0 }, reply: { toolCalls: [{ name: "subagent", arguments: { description: "remote", prompt: "{{2}}", agent: "{{1}}" } }] } },
      { when: { lastUser: "^delegate", step: 1 }, reply: { text: "Parent got: {{lastTool|firstLine}}" } },
      { when: { lastUser: "^continue (\\S+) (\\S+) (.*)$", step: 0 }, reply: { toolCalls: [{ name: "subagent", arguments: { description: "remote", prompt: "ask", agent: "{{1}}" } }] } },
      { when: { lastUser: "^continue (\\S+) (\\S+) (.*)$", step: 1 }, reply: { toolCalls: [{ name: "send_message", arguments: { to: "{{2}}", message: "{{3}}" } }] } },
      { when: { lastUser: "^continue", step: 2 }, reply: { text: "Parent got: {{lastTool|firstLine}}" } }
    ]
  }))
  return file
}

const userMessage = (text: string, contextId = "", taskId = ""): Message => ({
  messageId: crypto.randomUUID(),
  contextId,
  taskId,
  role: Role.ROLE_USER,
  parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: []
})

/** Starts `dsh a2a --listen 127.0.0.1:0`; resolves with the URL it prints. */
const serveDsh = (home: string, env: Record<string, string> = {}, model = "scripted") =>
  new Promise<{ url: string; process: ChildProcess }>((ok, fail) => {
    const child = spawn(DSH, ["a2a", "--listen", "127.0.0.1:0", "--model", model], {
      cwd: tempDir("dsh-a2a-cwd-"),
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", DSH_HOME: home, DSH_RESIDENT: "0", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    launched.push(child)
    let out = ""
    let err = ""
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString()
      const m = /dsh a2a listening on (\S+)/.exec(out)
      if (m !== null) ok({ url: m[1]!, process: child })
    })
    child.stderr!.on("data", (c: Buffer) => (err += c.toString()))
    child.on("exit", (code) => fail(new Error(`dsh a2a exited ${code}: ${err}`)))
  })

describe("dsh with A2A agents", { timeout: 90_000 }, () => {
  it("dsh run delegates to a2a:echo (streaming) and continues it after input-required", async () => {
    const server = await echo()
    const home = makeHome(`[a2a.agents.echo]\nurl = "${server.url}"\n`)
    const r = await runDsh(["run", "--allow", "subagent", "--output-format", "json", "--model", `scripted:${parentScript()}`, "delegate a2a:echo echo hello there"], { env: { DSH_HOME: home, DSH_RESIDENT: "0" } })
    expect(r.code, r.stderr).toBe(0)
    const doc = JSON.parse(r.stdout) as { result: string; subagents: Array<{ agent: string; provider: string; status: string }> }
    expect(doc.result).toBe("Parent got: hello there")
    expect(doc.subagents).toMatchObject([{ agent: "a2a:echo", provider: "a2a", status: "completed" }])

    const c = await runDsh(["run", "--allow", "subagent", "--output-format", "json", "--model", `scripted:${parentScript()}`, "continue a2a:echo a2a-echo-1 echo red"], { env: { DSH_HOME: home, DSH_RESIDENT: "0" } })
    expect(c.code, c.stderr).toBe(0)
    expect((JSON.parse(c.stdout) as { result: string }).result).toContain("red")

    // Cold: a later process answers the question of a child that ended waiting for input.
    const asked = await runDsh(["run", "--allow", "subagent", "--output-format", "json", "--model", `scripted:${parentScript()}`, "delegate a2a:echo ask"], { env: { DSH_HOME: home, DSH_RESIDENT: "0" } })
    expect(asked.code, asked.stderr).toBe(0)
    const { sessionId, result } = JSON.parse(asked.stdout) as { sessionId: string; result: string }
    expect(result).toBe("Parent got: which colour?")
    const sent = await runDsh(["subagents", "send", "a2a-echo-1", "echo green", "--session", sessionId, "--json"], { env: { DSH_HOME: home, DSH_RESIDENT: "0" } })
    expect(sent.code, sent.stderr).toBe(0)
    expect(sent.stdout).toContain("green")
  })

  it("dsh run against a non-streaming agent polls get-task", async () => {
    const server = await echo({ streaming: false })
    const home = makeHome(`[a2a.agents.echo]\nurl = "${server.url}"\n`)
    const r = await runDsh(["run", "--allow", "subagent", "--output-format", "json", "--model", `scripted:${parentScript()}`, "delegate a2a:echo echo polled"], { env: { DSH_HOME: home, DSH_RESIDENT: "0" } })
    expect(r.code, r.stderr).toBe(0)
    expect((JSON.parse(r.stdout) as { result: string }).result).toBe("Parent got: polled")
  })

  it("dsh agents list --json lists a2aAgents: ok, and invalid with the reason", async () => {
    const server = await echo()
    const home = makeHome([
      `[a2a.agents.echo]\nurl = "${server.url}"`,
      `[a2a.agents.gone]\nurl = "http://127.0.0.1:1/"`,
      `[a2a.agents.broken]\ndescription = "no url"`,
      ""
    ].join("\n"))
    const r = await runDsh(["agents", "list", "--json"], { env: { DSH_HOME: home } })
    expect(r.code, r.stderr).toBe(0)
    const doc = JSON.parse(r.stdout) as { a2aAgents: Array<{ name: string; url: string; status: string; reason?: string }> }
    expect(doc.a2aAgents).toHaveLength(3)
    expect(doc.a2aAgents[0]).toEqual({ name: "echo", url: server.url, status: "ok" })
    expect(doc.a2aAgents[1]).toMatchObject({ name: "gone", status: "invalid" })
    expect(doc.a2aAgents[1]!.reason).toContain("a2a:gone: cannot read its agent card")
    expect(doc.a2aAgents[2]).toEqual({ name: "broken", url: "", status: "invalid", reason: "[a2a.agents.broken] \"url\" is required" })
  })

  it("dsh a2a is consumed by the SDK's own client: send, streaming send, one session per contextId", async () => {
    const home = makeHome()
    const { url } = await serveDsh(home)
    const client = await new ClientFactory().createFromUrl(url)
    const card = await client.getAgentCard()
    expect(card.supportedInterfaces[0]?.url).toBe(url)
    // The agent types it can delegate to are its skills.
    expect(card.skills.map((s) => s.name)).toEqual(expect.arrayContaining(["coder", "explore", "plan"]))
    const first = await client.sendMessage({ tenant: "", message: userMessage("hello"), configuration: undefined, metadata: undefined })
    expect("id" in first && first.status?.state).toBe(3) // TASK_STATE_COMPLETED
    if (!("id" in first)) return
    expect(first.artifacts[0]?.parts[0]?.content).toMatchObject({ $case: "text" })
    const cases: Array<string> = []
    for await (const ev of client.sendMessageStream({ tenant: "", message: userMessage("again", first.contextId), configuration: undefined, metadata: undefined })) {
      cases.push(ev.payload?.$case ?? "")
      expect(ev.payload?.value.contextId).toBe(first.contextId)
    }
    expect(cases[0]).toBe("task")
    expect(cases).toContain("artifactUpdate")
    const sessions = await runDsh(["sessions", "list", "--json"], { env: { DSH_HOME: home } })
    expect((JSON.parse(sessions.stdout) as { sessions: Array<unknown> }).sessions).toHaveLength(1)
  })

  it("dsh a2a answers a v0.3 client (as Google ADK's RemoteA2AAgent is): the v0.3 card, message/send, message/stream, tasks/get", async () => {
    const home = makeHome()
    const { url } = await serveDsh(home)
    // No A2A-Version header: a v0.3 client, as the SDK's express handlers assume too.
    const card = await (await fetch(`${url}.well-known/agent-card.json`)).json() as { protocolVersion: string; url: string; preferredTransport: string; skills: Array<{ name: string }> }
    expect(card).toMatchObject({ protocolVersion: "0.3.0", url, preferredTransport: "JSONRPC" })
    expect(card.skills.map((s) => s.name)).toEqual(expect.arrayContaining(["coder", "explore", "plan"]))
    const rpc = (method: string, params: unknown) =>
      fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) })
    const message = (text: string, contextId?: string) => ({ message: { kind: "message", messageId: crypto.randomUUID(), role: "user", parts: [{ kind: "text", text }], ...(contextId === undefined ? {} : { contextId }) } })
    const sent = await (await rpc("message/send", message("hello"))).json() as { result: { kind: string; id: string; contextId: string; status: { state: string }; artifacts: Array<{ parts: Array<{ kind: string; text: string }> }> } }
    expect(sent.result).toMatchObject({ kind: "task", status: { state: "completed" } })
    expect(sent.result.artifacts[0]?.parts[0]?.kind).toBe("text")
    const got = await (await rpc("tasks/get", { id: sent.result.id })).json() as { result: { status: { state: string } } }
    expect(got.result.status.state).toBe("completed")
    const streamed = await rpc("message/stream", message("again", sent.result.contextId))
    expect(streamed.headers.get("content-type")).toContain("text/event-stream")
    const events = (await streamed.text()).split("\n").filter((l) => l.startsWith("data: ")).map((l) => (JSON.parse(l.slice(6)) as { result: { kind: string; contextId: string } }).result)
    expect(events[0]?.kind).toBe("task")
    expect(events.map((e) => e.kind)).toContain("artifact-update")
    for (const e of events) expect(e.contextId).toBe(sent.result.contextId)
    const sessions = await runDsh(["sessions", "list", "--json"], { env: { DSH_HOME: home } })
    expect((JSON.parse(sessions.stdout) as { sessions: Array<unknown> }).sessions).toHaveLength(1)
  })

  it("dsh a2a with [a2a.serve] token_env: a request without the token is 401", async () => {
    const home = makeHome("[a2a.serve]\ntoken_env = \"DSH_A2A_TOKEN\"\n")
    const { url } = await serveDsh(home, { DSH_A2A_TOKEN: "s3cret" })
    const bare = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } }) })
    expect(bare.status).toBe(401)
    const authed = new ClientFactory({
      transports: [new (await import("@a2a-js/sdk/client")).JsonRpcTransportFactory({ fetchImpl: (i, init) => fetch(i, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), authorization: "Bearer s3cret" } }) })]
    })
    const client = await authed.createFromUrl(url)
    const r = await client.sendMessage({ tenant: "", message: userMessage("hello"), configuration: undefined, metadata: undefined })
    expect("id" in r).toBe(true)
  })

  it("dsh a2a asks no one: a delegation that would ask is a denial naming the rule", async () => {
    const home = makeHome()
    const { url } = await serveDsh(home, {}, `scripted:${parentScript()}`)
    const client = await new ClientFactory().createFromUrl(url)
    const r = await client.sendMessage({ tenant: "", message: userMessage("delegate coder fix the bug"), configuration: undefined, metadata: undefined })
    expect("id" in r).toBe(true)
    if (!("id" in r)) return
    const text = r.artifacts.flatMap((a) => a.parts).map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("")
    expect(text).toContain(`Parent got: Error: permission denied: subagent(coder) needs approval (mode: default) and this A2A client cannot be asked (it did not activate the extension ${PERMISSION_QUESTIONS_EXTENSION}).`)
    expect(text).toContain("--allow 'subagent(coder)'")
  })

  it("dsh a2a asks a client that activates the permission-questions extension: input-required, then allow runs the delegation", async () => {
    const home = makeHome()
    const { url } = await serveDsh(home, {}, `scripted:${parentScript()}`)
    const client = await new ClientFactory().createFromUrl(url)
    expect(client.protocolVersion).toBe("1.0")
    const optIn = { serviceParameters: ServiceParameters.create(withA2AExtensions(PERMISSION_QUESTIONS_EXTENSION)) }
    const asked = await client.sendMessage({ tenant: "", message: userMessage("delegate coder fix the bug"), configuration: undefined, metadata: undefined }, optIn)
    if (!("id" in asked) || "messageId" in asked) throw new Error("expected a task")
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED)
    const question = asked.status?.message?.parts[0]?.content
    expect(question?.$case === "text" ? question.value : "").toContain("Permission needed: main wants to use: subagent(coder) (subagent(coder), mode: default)")
    const done = await client.sendMessage({ tenant: "", message: userMessage("allow", asked.contextId, asked.id), configuration: undefined, metadata: undefined }, optIn)
    if (!("id" in done) || "messageId" in done) throw new Error("expected a task")
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED)
    const text = done.artifacts.flatMap((a) => a.parts).map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("")
    expect(text).toContain("Parent got: ")
    expect(text).not.toContain("permission denied")
  })

  it("dsh a2a restarted continues a contextId in the same session", async () => {
    const home = makeHome()
    const first = await serveDsh(home)
    const client = await new ClientFactory().createFromUrl(first.url)
    const r = await client.sendMessage({ tenant: "", message: userMessage("hello"), configuration: undefined, metadata: undefined })
    if (!("id" in r)) throw new Error("expected a task")
    const exited = new Promise<number | null>((ok) => first.process.once("exit", (code) => ok(code)))
    first.process.kill("SIGTERM")
    expect(await exited).toBe(0)
    const second = await serveDsh(home)
    const again = await (await new ClientFactory().createFromUrl(second.url)).sendMessage({ tenant: "", message: userMessage("hello again", r.contextId), configuration: undefined, metadata: undefined })
    expect("id" in again && again.contextId).toBe(r.contextId)
    const sessions = await runDsh(["sessions", "list", "--json"], { env: { DSH_HOME: home } })
    expect((JSON.parse(sessions.stdout) as { sessions: Array<unknown> }).sessions).toHaveLength(1)
  })
})
