import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { afterEach, describe, expect, it } from "vitest"
import { type Subagents, type SubagentsError, createSubagents } from "../src/index.ts"
import { agents, model } from "./script.ts"

const open: Array<Subagents.Subagents> = []
const dirs: Array<string> = []
afterEach(async () => {
  for (const k of open.splice(0)) await k.close()
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})
const rejection = (p: Promise<unknown>) => p.then(() => expect.unreachable("it resolved"), (e: unknown) => e as SubagentsError.SubagentsError)

describe("@dsh/kit bad input: one line naming what was wrong and what there is, nothing left running", () => {
  it("a handle of another session is NotFound for send, wait, stop and detach, naming this session's children", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dsh-kit-bad-"))
    dirs.push(dir)
    const first = await createSubagents({ model, agents, store: { dir } })
    open.push(first)
    const ran = await first.prompt("hello")
    expect(ran.children.map((c) => c.handle)).toEqual(["researcher-1"])
    // Another kit on the same store has a session of its own, with a child of its own.
    const second = await createSubagents({ model, agents, store: { dir } })
    open.push(second)
    await second.delegate({ agent: "waiter", prompt: "wait", background: true })
    const expected = `no child is named "researcher-1"; yours: waiter-1`
    for (const call of [() => second.send("researcher-1", "hi"), () => second.wait(["researcher-1"]), () => second.stop("researcher-1"), () => second.detach("researcher-1")]) {
      const error = await rejection(call())
      expect([error.reason, error.message]).toEqual(["NotFound", expected])
    }
  })

  it("an unknown agent starts nothing", async () => {
    const k = await createSubagents({ model, agents })
    open.push(k)
    const error = await rejection(k.delegate({ agent: "nobody", prompt: "hi", background: true }))
    expect(error.reason).toBe("UnknownAgent")
    expect(error.message).toBe(`unknown agent type "nobody"; available: deployer, extractor, fork, manager, researcher, stubborn, waiter`)
    expect(await k.children()).toEqual([])
  })

  it("close stops the running children; later calls are Closed, saying how to go on", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dsh-kit-bad-"))
    dirs.push(dir)
    const k = await createSubagents({ model, agents, store: { dir } })
    const { sessionId } = await k.prompt("plain question")
    const run = await k.delegate({ agent: "waiter", prompt: "wait", background: true })
    while (!(await k.children()).some((c) => c.handle === run.handle && c.status === "running")) await sleep(5)
    await k.close()
    for (const call of [() => k.children(), () => k.detach("all"), () => k.send(run, "hi"), () => k.announcements()]) {
      const error = await rejection(call())
      expect([error.reason, error.message]).toEqual(["Closed", "this kit was closed (its children were stopped); create another with createSubagents()"])
    }
    // Read back from the store: the child was stopped with the kit.
    const again = await createSubagents({ model, agents, store: { dir } })
    open.push(again)
    const reread = await again.prompt("plain question", { sessionId })
    expect(reread.children.find((c) => c.handle === run.handle)?.status).toBe("cancelled")
  })
})
