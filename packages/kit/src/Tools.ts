import { makeAiSdkTools } from "./AiSdkTools.ts"
import { makeEffectAiTools } from "./EffectAiTools.ts"
import type { KitToolDefinition, SubagentCall, SubagentOutcome } from "./ToolDefinition.ts"
import type { ChildInfo, ChildResult, ChildRun, Queued } from "./Results.ts"
import type { KitTools, Subagents } from "./Subagents.ts"
import type { StandardSchemaV1 } from "./ResultSchema.ts"

export { type AnnouncementsStepOptions, announcementsStep, announcementText, type SubagentProgress } from "./AiSdkTools.ts"

const str = (description: string) => ({ type: "string", description })

const describe = (r: ChildResult | ChildRun | Queued | ChildInfo): string => {
  if ("text" in r) return `[${r.handle} · ${r.status}]\n${r.text}${r.notes === undefined ? "" : `\nNotes: ${r.notes}`}`
  if (r.status === "accepted") return `accepted ${r.handle}: it runs in the background; use wait to get its result`
  if (r.status === "queued") return `${r.handle} is running: it gets the message at its next step`
  return `${r.handle} (${(r as ChildInfo).agent}) is ${r.status}`
}

const record = (args: unknown): Record<string, unknown> => (typeof args === "object" && args !== null ? (args as Record<string, unknown>) : {})
const text = (args: Record<string, unknown>, key: string): string => (typeof args[key] === "string" ? (args[key] as string) : "")

/** A failure the model should see is a result it can act on, not a thrown error. */
const asResult = (p: Promise<string>) => p.catch((e: unknown) => `Error: ${e instanceof Error ? e.message : String(e)}`)

/** The kit calls the tools delegate through. */
export type ToolCalls = Pick<Subagents, "delegate" | "send" | "wait" | "children" | "on">

/** A Standard Schema that accepts anything: `resultSchema` is checked as JSON Schema by the child's `report` tool. */
const anyJson: StandardSchemaV1 = { "~standard": { version: 1, vendor: "dsh-json-schema", validate: (value) => ({ value }) } }

/** The types a `subagent` call may name, with what each is for (the model reads them). */
export type AgentTypes = ReadonlyArray<{ readonly name: string; readonly description: string }>

export const makeKitTools = (kit: ToolCalls, agentTypes: AgentTypes): KitTools => {
  const subagent: SubagentCall = (args, signal) => {
    const a = record(args)
    const base = { agent: text(a, "agent"), prompt: text(a, "prompt"), ...(a.description === undefined ? {} : { description: text(a, "description") }), signal }
    const resultSchema = typeof a.resultSchema === "object" && a.resultSchema !== null && !Array.isArray(a.resultSchema) ? (a.resultSchema as Record<string, unknown>) : undefined
    const refuse = (problem: string): Promise<SubagentOutcome> => Promise.reject(new Error(problem))
    const result: Promise<SubagentOutcome> = a.resultSchema !== undefined && resultSchema === undefined
      ? refuse(`resultSchema must be a JSON Schema object (such as {"type":"object","properties":{…}}), not ${JSON.stringify(a.resultSchema)}`)
      : a.background === true && resultSchema !== undefined
      ? refuse("resultSchema needs a foreground call: drop background, or read the background child's text from wait")
      : a.background === true
      ? kit.delegate({ ...base, background: true }).then((r) => ({ text: describe(r) }))
      : resultSchema === undefined
      ? kit.delegate(base).then((r) => ({ text: describe(r) }))
      : kit.delegate({ ...base, schema: anyJson, jsonSchema: resultSchema }).then((r) => ({
        text: `${describe(r)}\nresult: ${JSON.stringify(r.value)}`,
        structured: { handle: r.handle, status: r.status, text: r.text, result: r.value }
      }))
    return { prompt: base.prompt, result: result.catch((e: unknown) => ({ text: `Error: ${e instanceof Error ? e.message : String(e)}` })) }
  }
  const definitions = (): ReadonlyArray<KitToolDefinition> => [
    {
      name: "subagent",
      description: "Hand a focused task to a subagent that works in its own context and returns only its result; it sees " +
        "nothing but the prompt. background: true returns at once; collect the result with wait.\n\nAgents:\n" +
        agentTypes.map((t) => `- ${t.name}: ${t.description}`).join("\n"),
      inputSchema: {
        type: "object",
        properties: {
          agent: { type: "string", enum: agentTypes.map((t) => t.name), description: "The agent to run" },
          prompt: str("The complete task: the subagent sees nothing else"),
          description: str("A 3-5 word label"),
          background: { type: "boolean", description: "Return at once; get the result with wait" },
          resultSchema: { type: "object", description: "A JSON Schema the result must match: the subagent reports JSON of that shape, returned under result" }
        },
        required: ["agent", "prompt"],
        additionalProperties: false
      },
      execute: (args, o) => subagent(args, o?.signal).result.then((r) => r.text)
    },
    {
      name: "send_message",
      description: "Send a message to a subagent by its handle: a finished one continues with its context and answers; a running one reads it at its next step.",
      inputSchema: { type: "object", properties: { to: str("The subagent's handle, e.g. researcher-1"), message: str("The message") }, required: ["to", "message"], additionalProperties: false },
      execute: (args, o) => asResult(kit.send(text(record(args), "to"), text(record(args), "message"), { signal: o?.signal }).then(describe))
    },
    {
      name: "list_agents",
      description: "List the subagents started so far, with their handles (for send_message and wait) and status.",
      inputSchema: { type: "object", properties: {}, additionalProperties: false },
      execute: () => asResult(kit.children().then((all) => (all.length === 0 ? "no subagents yet" : all.map(describe).join("\n"))))
    },
    {
      name: "wait",
      description: "Wait for background subagents to finish (the given handles, or all) and return their results.",
      inputSchema: {
        type: "object",
        properties: { handles: { type: "array", items: { type: "string" }, description: "Handles to wait for; default all" }, timeoutSeconds: { type: "number", description: "Give up after this long" } },
        additionalProperties: false
      },
      execute: (args, o) => {
        const a = record(args)
        const handles = Array.isArray(a.handles) ? a.handles.filter((h): h is string => typeof h === "string") : undefined
        const timeoutMs = typeof a.timeoutSeconds === "number" ? a.timeoutSeconds * 1000 : undefined
        return asResult(kit.wait(handles, { signal: o?.signal, ...(timeoutMs === undefined ? {} : { timeoutMs }) }).then((rs) => (rs.length === 0 ? "nothing to wait for" : rs.map(describe).join("\n\n"))))
      }
    }
  ]
  // Per kit, not per aiSdk(): two tool sets of one kit must not follow the same child either.
  const claimed = new Set<string>()
  const aiSdk = <T,>(): Promise<T> => makeAiSdkTools<T>(kit, definitions(), subagent, claimed)
  const openaiAgents = async <T,>(): Promise<T> => {
    // Loaded only here, as the AI SDK is.
    const agents = await import("@openai/agents").catch(() => undefined)
    if (agents === undefined) throw new Error("kit.tools.openaiAgents() needs the OpenAI Agents SDK: npm install @openai/agents")
    return definitions().map((d) =>
      agents.tool({
        name: d.name,
        description: d.description,
        // Non-strict: our schemas have optional fields, which strict mode does not allow.
        parameters: { ...d.inputSchema, required: (d.inputSchema.required as Array<string> | undefined) ?? [], additionalProperties: true } as never,
        strict: false,
        execute: (args: unknown, _context: unknown, details?: { readonly signal?: AbortSignal | undefined }) => d.execute(args, { signal: details?.signal })
      })
    ) as T
  }
  return { definitions, aiSdk, openaiAgents, effectAi: () => makeEffectAiTools(definitions()) }
}
