import { ScriptedModel } from "@dsh/llm-scripted"
import { setTimeout as sleep } from "node:timers/promises"
import { afterEach, describe, expect, it } from "vitest"
import * as z from "zod"
import { type Subagents, type SubagentsError, createSubagents } from "../src/index.ts"

// The waiter never answers until stopped; the lead delegates to it in the foreground and says
// what its call returned, then what it was told.
const model = ScriptedModel.make({
  rules: [
    { when: { system: "^You wait" }, reply: { hang: true } },
    { when: { lastUser: "subagent announcement" }, reply: { text: "lead heard: {{lastUser|firstLine}}" } },
    { when: { lastUser: "^wait for it", step: 0 }, reply: { toolCalls: [{ name: "subagent", arguments: { agent: "waiter", description: "wait", prompt: "wait" } }] } },
    { reply: { text: "lead: {{lastTool|firstLine}}" } }
  ]
})
const agents = { waiter: { description: "never finishes", instructions: "You wait forever." } }

const open: Array<Subagents.Subagents> = []
afterEach(async () => {
  for (const k of open.splice(0)) await k.close()
})
const kit = async () => {
  const k = await createSubagents({ model, agents })
  open.push(k)
  return k
}
const rejection = (p: Promise<unknown>) => p.then(() => expect.unreachable("it resolved"), (e: unknown) => e as SubagentsError.SubagentsError)

/** Polled, not timed: until `handle` runs. */
const running = async (k: Subagents.Subagents, handle: string) => {
  while (!(await k.children()).some((c) => c.handle === handle && c.status === "running")) await sleep(5)
}

describe("kit.detach", () => {
  it("a detachable delegate resolves to its accepted run at once; its outcome is announced once", async () => {
    const k = await kit()
    const call = k.delegate({ agent: "waiter", prompt: "wait", detachable: true })
    await running(k, "waiter-1")
    const detached = await k.detach("waiter-1")
    expect(detached).toEqual([{ handle: "waiter-1", status: "accepted", runId: expect.any(String) }])
    expect(await call).toEqual(detached[0])
    // Still running, now in the background: stopping it ends it, and the outcome comes once.
    expect((await k.children()).find((c) => c.handle === "waiter-1")?.status).toBe("running")
    await k.stop("waiter-1")
    let heard = await k.announcements()
    while (heard.length === 0) {
      await sleep(5)
      heard = await k.announcements()
    }
    expect(heard.map((a) => [a.handle, a.status])).toEqual([["waiter-1", "cancelled"]])
    expect(await k.announcements()).toEqual([])
  })

  it("the lead's foreground subagent call returns accepted; the lead is woken by the announcement", async () => {
    const k = await kit()
    let said = ""
    const off = k.on("*", (e) => {
      if (e.handle === "main" && e.type === "message" && e.message.role === "assistant") said = e.message.content
    })
    const prompt = k.prompt("wait for it")
    await running(k, "waiter-1")
    expect((await k.detach("all")).map((r) => r.handle)).toEqual(["waiter-1"])
    // The lead's turn goes on without the child; its prompt ends once the child has settled.
    while (!said.startsWith("lead: ")) await sleep(5)
    off()
    expect(said).toContain(`"status":"accepted"`)
    await k.stop("waiter-1")
    const result = await prompt
    expect(result.text).toMatch(/^lead heard: \[subagent announcement\]/)
    expect(await k.announcements()).toEqual([])
  })

  it("refuses, in one line naming what there is: an unknown handle, a typed delegate, after close", async () => {
    const k = await kit()
    const missing = await rejection(k.detach("nobody-1"))
    expect([missing.reason, missing.message]).toEqual(["NotFound", `no child is named "nobody-1"; yours: (none)`])
    // A typed result is waited for to its end: it cannot be both detachable and typed.
    const typed = await rejection(k.delegate({ agent: "waiter", prompt: "wait", schema: z.object({ ok: z.boolean() }), detachable: true } as never))
    expect(typed.reason).toBe("InvalidOptions")
    // A foreground delegate without `detachable` keeps its caller.
    const held = k.delegate({ agent: "waiter", prompt: "wait" })
    await running(k, "waiter-1")
    const refused = await rejection(k.detach("waiter-1"))
    expect(refused.message).toBe("waiter-1 cannot be detached: its caller waits for it and cannot let go of it; detachable now: (none)")
    expect(await k.detach("all")).toEqual([])
    await k.stop("waiter-1")
    expect(await held).toMatchObject({ handle: "waiter-1", status: "cancelled" })
    await k.close()
    expect((await rejection(k.detach("all"))).reason).toBe("Closed")
  })
})
