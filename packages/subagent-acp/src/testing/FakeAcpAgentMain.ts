/**
 * A fake ACP agent process, written with the ACP SDK, that behaves like the vendor agents dsh
 * runs as children (Codex, Claude Code, Gemini CLI) in the ways that matter to a parent:
 * where it reports usage, how it announces tool calls, whether it exits on EOF or on SIGTERM,
 * whether it can load a session. Its "model" is the prompt language below; nothing is run for
 * real. Flags (see `FakeAcpAgentOptions` in `./FakeAcpAgent.ts`):
 *
 *   --usage=response|update|meta|none   where token usage goes (default response)
 *   --late-input                        tool calls first without input; the command in a later update
 *   --permission-first                  a permission request with no tool_call before it
 *   --no-exit-on-eof                    keeps running after its stdin ends
 *   --ignore-sigterm                    ignores SIGTERM
 *   --load-session                      advertises loadSession (sessions kept in --state DIR)
 *   --state DIR                         where sessions are kept
 *   --pid-file FILE                     appends its pid (and its helpers') there
 *
 * Prompts: `CONFORMANCE echo|hang|fail|crash|recall|slow|partial …` (the provider conformance
 * language), `run COMMAND`, `write PATH`, `whoami`, `mcp`, `silent`, `flood MEGABYTES` (that much
 * text in 64 KiB chunks of one message, then the end of the turn), anything else is echoed.
 * Every model call counts 10 input and 3 output tokens and costs $0.001.
 */
import * as acp from "@agentclientprotocol/sdk/unstable"
import { spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Readable, Writable } from "node:stream"
import { setTimeout as sleep } from "node:timers/promises"

const argv = process.argv.slice(2)
const flag = (name: string): boolean => argv.includes(`--${name}`)
const option = (name: string): string | undefined => {
  const inline = argv.find((a) => a.startsWith(`--${name}=`))
  if (inline !== undefined) return inline.slice(name.length + 3)
  const i = argv.indexOf(`--${name}`)
  return i >= 0 ? argv[i + 1] : undefined
}

const usageMode = option("usage") ?? "response"
const stateDir = option("state") ?? join(tmpdir(), "dsh-fake-acp-agent")
const pidFile = option("pid-file")
const loadable = flag("load-session")

if (flag("ignore-sigterm")) process.on("SIGTERM", () => undefined)
if (pidFile !== undefined) appendFileSync(pidFile, `${process.pid}\n`)

const CALL = { input: 10, output: 3, cost: 0.001 }

interface Session {
  readonly id: string
  readonly prompts: Array<string>
  /** Model calls so far: the cumulative cost and context. */
  calls: number
  mcp: Array<string>
}

const sessions = new Map<string, Session>()
const turns = new Map<string, AbortController>()
const stateFile = (id: string) => join(stateDir, `${id}.json`)
const save = (s: Session) => {
  if (!loadable) return
  mkdirSync(stateDir, { recursive: true })
  writeFileSync(stateFile(s.id), JSON.stringify({ prompts: s.prompts, calls: s.calls }))
}

const io = { writable: Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, readable: Readable.toWeb(process.stdin) as ReadableStream<Uint8Array> }

const app = acp.agent({ name: "fake-vendor" })
  .onRequest(acp.methods.agent.initialize, () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: { loadSession: loadable, mcpCapabilities: { http: true, sse: false } },
    agentInfo: { name: "fake-vendor", version: "1.0.0" }
  }))
  .onRequest(acp.methods.agent.session.new, ({ params }) => {
    const s: Session = { id: randomUUID(), prompts: [], calls: 0, mcp: params.mcpServers.map((m) => m.name) }
    sessions.set(s.id, s)
    save(s)
    return { sessionId: s.id }
  })
  .onRequest(acp.methods.agent.session.load, async ({ params, client }) => {
    if (!loadable || !existsSync(stateFile(params.sessionId))) throw acp.RequestError.invalidParams(undefined, `no session ${params.sessionId}`)
    const saved = JSON.parse(readFileSync(stateFile(params.sessionId), "utf8")) as { prompts: Array<string>; calls: number }
    const s: Session = { id: params.sessionId, prompts: saved.prompts, calls: saved.calls, mcp: params.mcpServers.map((m) => m.name) }
    sessions.set(s.id, s)
    // The history is replayed, as vendors do, and the running totals with it.
    for (const prompt of s.prompts) {
      await client.notify(acp.methods.client.session.update, { sessionId: s.id, update: { sessionUpdate: "user_message_chunk", content: { type: "text", text: prompt } } })
      await client.notify(acp.methods.client.session.update, { sessionId: s.id, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `(answered: ${prompt})` } } })
    }
    if (usageMode === "update" && s.calls > 0) await client.notify(acp.methods.client.session.update, { sessionId: s.id, update: usageUpdate(s) })
    return {}
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    const s = sessions.get(params.sessionId)
    if (s === undefined) throw acp.RequestError.invalidParams(undefined, `no session ${params.sessionId}`)
    const text = params.prompt.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n").trim()
    const turn = new AbortController()
    turns.set(s.id, turn)
    try {
      return await answer(s, text, client, turn.signal)
    } finally {
      turns.delete(s.id)
      s.prompts.push(text)
      save(s)
    }
  })
  .onNotification(acp.methods.agent.session.cancel, ({ params }) => turns.get(params.sessionId)?.abort())

const connection = app.connect(acp.ndJsonStream(io.writable, io.readable))
void connection.closed.then(() => {
  // Codex never exits on EOF: it keeps its event loop busy.
  if (flag("no-exit-on-eof")) setInterval(() => undefined, 60_000)
  else process.exit(0)
})

function usageUpdate(s: Session): acp.SessionUpdate {
  return { sessionUpdate: "usage_update", used: CALL.input + CALL.output, size: 200_000, cost: { amount: s.calls * CALL.cost, currency: "USD" } }
}

/** One model call: counted, and reported at once when usage goes in `usage_update`. */
async function modelCall(s: Session, client: acp.AgentContext, turnCalls: { n: number }) {
  s.calls++
  turnCalls.n++
  if (usageMode === "update") await client.notify(acp.methods.client.session.update, { sessionId: s.id, update: usageUpdate(s) })
}

/** The end of a turn, with its usage where this agent reports it. */
function done(stopReason: acp.StopReason, calls: number): acp.PromptResponse {
  const tokens = { inputTokens: calls * CALL.input, outputTokens: calls * CALL.output, totalTokens: calls * (CALL.input + CALL.output) }
  if (usageMode === "response") return { stopReason, usage: tokens }
  if (usageMode === "meta") return { stopReason, _meta: { quota: { token_count: { input_tokens: tokens.inputTokens, output_tokens: tokens.outputTokens, total_tokens: tokens.totalTokens } } } }
  return { stopReason }
}

const untilAborted = (signal: AbortSignal) => new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }))

async function say(s: Session, client: acp.AgentContext, text: string) {
  const half = Math.ceil(text.length / 2)
  const messageId = randomUUID()
  for (const part of [text.slice(0, half), text.slice(half)]) {
    if (part !== "") await client.notify(acp.methods.client.session.update, { sessionId: s.id, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: part }, messageId } })
  }
}

async function update(s: Session, client: acp.AgentContext, u: acp.SessionUpdate) {
  await client.notify(acp.methods.client.session.update, { sessionId: s.id, update: u })
}

/** A tool call announced the way the vendor this agent imitates does, then permission, then its result. */
async function tool(s: Session, client: acp.AgentContext, kind: "execute" | "edit", rawInput: Record<string, unknown>, title: string, locations: Array<acp.ToolCallLocation>): Promise<{ allowed: boolean; reason?: string }> {
  const toolCallId = `call-${s.prompts.length}-${randomUUID().slice(0, 8)}`
  if (flag("late-input")) {
    // Claude: the call is announced while its input still streams; the input comes in an update.
    await update(s, client, { sessionUpdate: "tool_call", toolCallId, title: kind === "execute" ? "Terminal" : "Edit", kind, status: "pending", rawInput: {} })
    await update(s, client, { sessionUpdate: "tool_call_update", toolCallId, title, rawInput, locations })
  } else if (!flag("permission-first")) {
    await update(s, client, { sessionUpdate: "tool_call", toolCallId, title, kind, status: "pending", rawInput, locations })
  }
  const request: acp.RequestPermissionRequest = {
    sessionId: s.id,
    // Gemini: the permission request is the first thing the client hears of the call.
    toolCall: flag("permission-first") ? { toolCallId, title, kind, status: "pending", rawInput, locations } : { toolCallId },
    options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }, { optionId: "reject", name: "Reject", kind: "reject_once" }]
  }
  const answer = await client.request(acp.methods.client.session.requestPermission, request)
  const allowed = answer.outcome.outcome === "selected" && answer.outcome.optionId === "allow"
  const reason = typeof answer._meta?.["dsh/reason"] === "string" ? answer._meta["dsh/reason"] : undefined
  if (!allowed) {
    await update(s, client, { sessionUpdate: "tool_call_update", toolCallId, status: "failed", content: [{ type: "content", content: { type: "text", text: `denied${reason === undefined ? "" : `: ${reason}`}` } }] })
    return { allowed, ...(reason === undefined ? {} : { reason }) }
  }
  await update(s, client, { sessionUpdate: "tool_call_update", toolCallId, status: "in_progress" })
  const output = kind === "execute" ? `ran: ${String(rawInput.command)}` : `wrote ${String(rawInput.path)}`
  await update(s, client, { sessionUpdate: "tool_call_update", toolCallId, status: "completed", content: [{ type: "content", content: { type: "text", text: output } }], rawOutput: { exitCode: 0 } })
  return { allowed }
}

async function answer(s: Session, text: string, client: acp.AgentContext, signal: AbortSignal): Promise<acp.PromptResponse> {
  const calls = { n: 0 }
  const reply = async (message: string) => {
    await modelCall(s, client, calls)
    await say(s, client, message)
    return done("end_turn", calls.n)
  }
  let m: RegExpExecArray | null
  if ((m = /^CONFORMANCE echo (\S+)/.exec(text)) !== null) return reply(`echo ${m[1]}`)
  if (text.startsWith("CONFORMANCE recall")) return reply(`recall: ${s.prompts.join(" | ")}`)
  if (text.startsWith("CONFORMANCE slow")) {
    await Promise.race([sleep(1500), untilAborted(signal)])
    if (signal.aborted) return done("cancelled", calls.n)
    return reply("slow done")
  }
  if (text.startsWith("CONFORMANCE fail")) throw new acp.RequestError(-32603, "scripted failure: the model is unavailable")
  if (text.startsWith("CONFORMANCE crash")) {
    process.stderr.write("panic: the fake agent crashed mid-turn\n")
    setTimeout(() => process.exit(70), 10)
    await untilAborted(new AbortController().signal)
  }
  if (text.startsWith("CONFORMANCE hang")) {
    await untilAborted(signal)
    return done("cancelled", calls.n)
  }
  if (text.startsWith("CONFORMANCE partial")) {
    // Says something and spends tokens, then waits on a model that never answers.
    await modelCall(s, client, calls)
    await say(s, client, "partial progress")
    await update(s, client, { sessionUpdate: "tool_call", toolCallId: `wait-${s.prompts.length}`, title: "Wait for the model", kind: "other", status: "in_progress", rawInput: { seconds: 3600 } })
    await untilAborted(signal)
    return done("cancelled", calls.n)
  }
  if ((m = /^run (.+)$/s.exec(text)) !== null) {
    await modelCall(s, client, calls)
    const command = m[1]!.trim()
    const r = await tool(s, client, "execute", { command }, `\`${command}\``, [])
    return reply(r.allowed ? `done: ran ${command}` : `could not run ${command}: ${r.reason ?? "denied"}`)
  }
  if ((m = /^write (\S+)/.exec(text)) !== null) {
    await modelCall(s, client, calls)
    const path = m[1]!
    const r = await tool(s, client, "edit", { path, content: "hello\n" }, `Write ${path}`, [{ path }])
    return reply(r.allowed ? `done: wrote ${path}` : `could not write ${path}: ${r.reason ?? "denied"}`)
  }
  if ((m = /^flood (\d+)$/.exec(text)) !== null) {
    // A child that floods its parent; it stops when the parent cancels (or stops reading).
    await modelCall(s, client, calls)
    const chunk = `${"x".repeat(64 * 1024 - 1)}\n`
    const messageId = randomUUID()
    for (let sent = 0; sent < Number(m[1]) * 1024 * 1024 && !signal.aborted; sent += chunk.length) {
      await update(s, client, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: chunk }, messageId })
    }
    return done(signal.aborted ? "cancelled" : "end_turn", calls.n)
  }
  if (text === "whoami") return reply(`pid ${process.pid} session ${s.id} turn ${s.prompts.length + 1}`)
  if (text === "mcp") return reply(`mcp servers: ${s.mcp.join(", ") || "(none)"}`)
  if (text === "silent") {
    // A model call that never returns, whatever the client says; a helper process runs meanwhile.
    const helper = spawn("sleep", ["1000"], { stdio: "ignore" })
    if (pidFile !== undefined && helper.pid !== undefined) appendFileSync(pidFile, `${helper.pid}\n`)
    await untilAborted(new AbortController().signal)
  }
  return reply(`you said: ${text}`)
}
