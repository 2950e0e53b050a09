import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { afterEach, describe, expect, it } from "vitest"
import * as z from "zod"
import { Tool } from "@dsh/tools"
import { Effect, Schema } from "effect"
import { type Subagents, SubagentsError, createSubagents } from "../src/index.ts"
import { agents, model } from "./script.ts"

const open: Array<Subagents.Subagents> = []
const kit = async () => {
  const k = await createSubagents({ model, agents })
  open.push(k)
  return k
}
afterEach(async () => {
  for (const k of open.splice(0)) await k.close()
})

/** The error a promise rejects with. */
const rejection = (p: Promise<unknown>) => p.then(() => expect.unreachable("it resolved"), (e: unknown) => e as SubagentsError.SubagentsError)

describe("@dsh/kit", () => {
  it("hello subagent: the lead delegates and answers from the child's result", async () => {
    const k = await kit()
    const said: Array<string> = []
    k.on("text-delta", (e) => e.handle === "main" && said.push(e.text))
    const result = await k.prompt("hello")
    expect(said.join("")).toBe(result.text)
    expect(result.status).toBe("completed")
    expect(result.text).toBe("lead: researched: What is the answer?")
    expect(result.children.map((c) => `${c.handle} ${c.status}`)).toEqual(["researcher-1 completed"])
    expect(result.sessionId).toMatch(/\S/)
  })

  it("delegates in the foreground and continues a finished child with send", async () => {
    const k = await kit()
    const first = await k.delegate({ agent: "researcher", prompt: "topic A" })
    expect(first).toMatchObject({ handle: "researcher-1", status: "completed", text: "researched: topic A" })
    const again = await k.send(first, "and the sources?")
    expect(again).toMatchObject({ handle: "researcher-1", status: "completed" })
    expect("text" in again && again.text).toMatch(/^sources: the docs/)
  })

  it("background children: wait returns their results; announcements hand each outcome out once", async () => {
    const k = await kit()
    const run = await k.delegate({ agent: "researcher", prompt: "topic B", background: true })
    expect(run).toMatchObject({ status: "accepted", handle: "researcher-1" })
    const [waited] = await k.wait([run])
    expect(waited).toMatchObject({ handle: "researcher-1", status: "completed", text: "researched: topic B" })

    await k.delegate({ agent: "researcher", prompt: "topic C", background: true })
    let heard = await k.announcements()
    // Polled, not timed: the outcome is recorded when the child's run has ended.
    while (heard.length === 0) {
      await sleep(5)
      heard = await k.announcements()
    }
    expect(heard.map((a) => `${a.handle} ${a.status} ${a.result?.text}`)).toEqual(["researcher-2 completed researched: topic C"])
    expect(await k.announcements()).toEqual([])
  })

  it("the lead of prompt is main's instructions", async () => {
    const k = await createSubagents({ model, agents, main: { instructions: "You are Bob, the lead." } })
    open.push(k)
    expect((await k.prompt("a question")).text).toBe("Bob here, with a question")
  })

  it("wait lists a child still running after its timeout as it is", async () => {
    const k = await kit()
    const run = await k.delegate({ agent: "waiter", prompt: "wait", background: true })
    const [still] = await k.wait([run], { timeoutMs: 1 })
    expect(still).toMatchObject({ handle: "waiter-1", agent: "waiter" })
    expect(still && "text" in still).toBe(false)
  })

  it("stop all stops running children", async () => {
    const k = await kit()
    const started = new Promise<void>((resolve) => k.on("turn-start", () => resolve()))
    await k.delegate({ agent: "waiter", prompt: "wait", background: true })
    await started
    expect(await k.stop("all")).toEqual(["waiter-1"])
    const [done] = await k.wait()
    expect(done).toMatchObject({ handle: "waiter-1", status: "cancelled" })
  })

  it("an abort signal stops the child it started", async () => {
    const k = await kit()
    const abort = new AbortController()
    const off = k.on("turn-start", (e) => e.handle === "waiter-1" && abort.abort())
    const error = await rejection(k.delegate({ agent: "waiter", prompt: "wait", signal: abort.signal }))
    off()
    expect(error).toBeInstanceOf(SubagentsError.SubagentsError)
    expect(error.reason).toBe("Aborted")
    expect((await k.children()).map((c) => `${c.handle} ${c.status}`)).toEqual(["waiter-1 cancelled"])
  })

  it("an abort signal stops the child's descendants too", async () => {
    const k = await createSubagents({ model, agents, limits: { maxDepth: 2 } })
    open.push(k)
    const abort = new AbortController()
    k.on("turn-start", (e) => e.handle === "waiter-1" && abort.abort())
    expect((await rejection(k.delegate({ agent: "manager", prompt: "manage", signal: abort.signal }))).reason).toBe("Aborted")
    const children = await k.children()
    expect(children.map((c) => `${c.handle} ${c.parent} ${c.status}`).sort()).toEqual(["manager-1 main cancelled", "waiter-1 manager-1 cancelled"])
  })

  it("an aborted prompt stops the children it started, and only those", async () => {
    const k = await kit()
    const before = await k.delegate({ agent: "waiter", prompt: "wait", background: true })
    const abort = new AbortController()
    k.on("turn-start", (e) => e.handle === "waiter-2" && abort.abort())
    expect((await rejection(k.prompt("start a waiter", { signal: abort.signal }))).reason).toBe("Aborted")
    const status = Object.fromEntries((await k.children()).map((c) => [c.handle, c.status]))
    expect(status).toEqual({ [before.handle]: "running", "waiter-2": "cancelled" })
  })

  it("on hears children's events until unsubscribed", async () => {
    const k = await kit()
    const seen: Array<string> = []
    const off = k.on("*", (e) => seen.push(`${e.handle} ${e.type}`))
    await k.delegate({ agent: "researcher", prompt: "topic D" })
    off()
    await k.delegate({ agent: "researcher", prompt: "topic E" })
    expect(seen).toContain("researcher-1 turn-start")
    expect(seen).toContain("researcher-1 text-delta")
    expect(seen).toContain("researcher-1 turn-end")
    expect(seen.some((s) => s.startsWith("researcher-2"))).toBe(false)
  })

  describe("typed results", () => {
    const Person = z.object({ name: z.string(), age: z.number() })

    it("returns the reported JSON parsed with its schema's type", async () => {
      const k = await kit()
      const result = await k.delegate({ agent: "extractor", prompt: "valid", schema: Person })
      const age: number = result.value.age
      expect(age).toBe(36)
      expect(result.value).toEqual({ name: "Ada", age: 36 })
    })

    it("an invalid report is refused to the child, which then reports validly", async () => {
      const k = await kit()
      const result = await k.delegate({ agent: "extractor", prompt: "invalid-once", schema: Person })
      expect(result.value).toEqual({ name: "Ada", age: 36 })
    })

    it("a result the schema refuses is sent back to the child once", async () => {
      const k = await kit()
      const Adult = z.object({ name: z.string(), age: z.number().min(18) })
      const result = await k.delegate({ agent: "extractor", prompt: "refined", schema: Adult })
      expect(result.value).toEqual({ name: "Ada", age: 36 })
    })

    it("a child that never reports validly fails with InvalidResult", async () => {
      const k = await kit()
      const error = await rejection(k.delegate({ agent: "stubborn", prompt: "a person", schema: Person }))
      expect(error.reason).toBe("InvalidResult")
      expect(error.message).toMatch(/^stubborn-1 did not report a valid result: /)
    })

    it("Effect Schema: with its Standard JSON Schema, or with the JSON Schema passed", async () => {
      const k = await kit()
      const EffectPerson = Schema.Struct({ name: Schema.String, age: Schema.Number })
      const standard = Schema.toStandardSchemaV1(EffectPerson)
      const both = await k.delegate({ agent: "extractor", prompt: "valid", schema: Schema.toStandardJSONSchemaV1(standard) })
      const age: number = both.value.age
      expect(age).toBe(36)
      const error = await rejection(k.delegate({ agent: "extractor", prompt: "valid", schema: standard }))
      expect(error.reason).toBe("InvalidSchema")
      expect(error.message).toBe("this effect schema has no Standard JSON Schema (~standard.jsonSchema): pass its JSON Schema as `jsonSchema`")
      const jsonSchema = { type: "object", properties: { name: { type: "string" }, age: { type: "number" } }, required: ["name", "age"] }
      expect((await k.delegate({ agent: "extractor", prompt: "valid", schema: standard, jsonSchema })).value).toEqual({ name: "Ada", age: 36 })
    })

    it("an agent whose tools list omits report still gets it", async () => {
      const k = await kit()
      expect((await k.delegate({ agent: "deployer", prompt: "which tools?" })).text).toBe("report is offered")
    })

    it("a schema that is not a Standard Schema is a one-line InvalidSchema error", async () => {
      const k = await kit()
      const error = await rejection(k.delegate({ agent: "extractor", prompt: "valid", schema: { type: "object" } as never }))
      expect(error.reason).toBe("InvalidSchema")
      expect(error.message).not.toContain("\n")
      expect(await k.children()).toEqual([])
    })
  })

  it("an unknown agent is an error naming the available ones", async () => {
    const k = await kit()
    const error = await rejection(k.delegate({ agent: "nobody", prompt: "hi" }))
    expect(error.reason).toBe("UnknownAgent")
    expect(error.message).toContain("deployer, extractor, fork, manager, researcher, stubborn, waiter")
  })

  it("a handle that does not exist is NotFound, naming the kit's children", async () => {
    const k = await kit()
    await k.delegate({ agent: "researcher", prompt: "topic F" })
    const error = await rejection(k.send("nobody-1", "hi"))
    expect(error.reason).toBe("NotFound")
    expect(error.message).toBe("no child is named \"nobody-1\"; yours: researcher-1")
  })

  it("an unsupported model object is a typed error", async () => {
    const error = await rejection(createSubagents({ model: { specificationVersion: "v9" } as never, agents }))
    expect(error.reason).toBe("UnsupportedModel")
    expect(error.message).toContain("v2, v3 and v4")
  })

  it("calls after close fail with Closed", async () => {
    const k = await createSubagents({ model, agents })
    await k.close()
    await k.close()
    const error = await rejection(k.delegate({ agent: "researcher", prompt: "late" }))
    expect(error.reason).toBe("Closed")
    expect((await rejection(k.prompt("hello"))).reason).toBe("Closed")
  })
})

describe("@dsh/kit options: stores, agent files, names", () => {
  it("a file store keeps the session: a new kit continues it by id, and its children", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dsh-kit-"))
    const first = await createSubagents({ model, agents, store: { dir } })
    const { sessionId } = await first.prompt("hello")
    await first.close()
    const second = await createSubagents({ model, agents, store: { dir } })
    const again = await second.prompt("hello", { sessionId })
    await second.close()
    rmSync(dir, { recursive: true, force: true })
    expect(again.sessionId).toBe(sessionId)
    expect(again.children.map((c) => c.handle)).toEqual(["researcher-1", "researcher-2"])
  })

  it("an unknown session id is NotFound", async () => {
    const k = await kit()
    expect((await rejection(k.prompt("hello", { sessionId: "20260101T000000-deadbeef" }))).reason).toBe("NotFound")
  })

  it("agents from a directory of agent files, beside agents in code", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dsh-kit-agents-"))
    writeFileSync(join(dir, "reviewer.md"), "---\nname: reviewer\ndescription: reviews code\n---\nYou review code.\n")
    const k = await createSubagents({ model, agents: [dir, agents] })
    open.push(k)
    expect(await k.delegate({ agent: "reviewer", prompt: "src/a.ts" })).toMatchObject({ handle: "reviewer-1", text: "reviewed: src/a.ts" })
    writeFileSync(join(dir, "notes.md"), "just notes\n")
    const error = await rejection(createSubagents({ model, agents: [dir] }))
    rmSync(dir, { recursive: true, force: true })
    expect(error.reason).toBe("InvalidOptions")
    expect(error.message).toMatch(/notes\.md: /)
  })

  it("the app's tools run under the kit's permission rules, and decisions are events", async () => {
    const deploy = Tool.defineTool({
      name: "deploy",
      description: "deploys",
      parameters: z.object({ env: z.string().describe("where") }),
      needsApproval: true,
      permission: { kind: "execute", specifier: (p) => p.env },
      execute: (p) => Effect.succeed(`deployed to ${p.env}`)
    })
    const k = await createSubagents({ model, agents, tools: [deploy], permissions: { mode: "bypass", deny: ["deploy(production)"] } })
    open.push(k)
    const decisions: Array<string> = []
    k.on("permission", (e) => decisions.push(`${e.handle} ${e.subject} ${e.decision}`))
    expect((await k.delegate({ agent: "deployer", prompt: "staging" })).text).toBe("deploy said: deployed to staging")
    expect((await k.delegate({ agent: "deployer", prompt: "production" })).text).toMatch(/^deploy said: Error: /)
    expect(decisions).toEqual(["deployer-1 deploy(staging) allowed", "deployer-2 deploy(production) denied"])
  })

  it("malformed permission rules are refused when the kit is created", async () => {
    const error = await rejection(createSubagents({ model, agents, permissions: { deny: ["Bash(unclosed"] } }))
    expect(error.reason).toBe("InvalidOptions")
  })

  it("bad agent names are refused when the kit is created", async () => {
    const error = await rejection(createSubagents({ model, agents: { "Bad Name": agents.researcher } }))
    expect(error.reason).toBe("InvalidOptions")
    expect(error.message).toBe("agent name \"Bad Name\" must be kebab-case (a-z, 0-9, -)")
  })
})
