/**
 * A child whose transcript cannot be made durable (its fdatasync fails: a disk error) still
 * delivers its outcome, and its parent is told that the child's record may be incomplete.
 * `node:fs` is wrapped so that the child's transcript's fdatasync fails; everything else is real.
 */
import { AgentHost } from "@dsh/agent"
import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { assert, describe, it } from "@effect/vitest"
import { vi } from "vitest"
import { Effect } from "effect"
import { mkdtempSync, readlinkSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { leadAndResearcher, type Message } from "./support.ts"

vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>()
  const childTranscript = (fd: number) => {
    try {
      return /\/agents\/[^/]+\/wire\.jsonl$/.test(readlinkSync(`/proc/self/fd/${fd}`))
    } catch {
      return false
    }
  }
  return {
    ...actual,
    fdatasync: (fd: number, cb: (e: Error | null) => void) =>
      childTranscript(fd) ? cb(Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO" })) : actual.fdatasync(fd, cb)
  }
})

describe("a child whose transcript cannot be synced", () => {
  it("delivers its answer, and the parent's model is told the child's record may be incomplete", async () => {
    const toolResults: Array<string> = []
    const server = await FakeOpenAIServer.startFakeOpenAIServer({
      respond: (request) => {
        const messages = (request.body as { messages?: ReadonlyArray<Message> }).messages ?? []
        if (String(messages.find((m) => m.role === "system")?.content).includes("You research")) return { text: "The answer is 42." }
        const last = messages.at(-1)
        if (last?.role === "tool") {
          toolResults.push(String(last.content))
          return { text: "done" }
        }
        return { toolCalls: [{ id: "call_0", name: "subagent", arguments: { description: "q", prompt: "What?", agent: "researcher" } }] }
      }
    })
    const home = mkdtempSync(join(tmpdir(), "dsh-unsynced-"))
    const host = leadAndResearcher(home, server.url)
    try {
      const result = await host.runPromise(Effect.gen(function*() {
        const dsh = yield* AgentHost.AgentHost
        const { id } = yield* dsh.createSession({ cwd: home })
        return yield* dsh.prompt({ sessionId: id, prompt: "What is the answer?" })
      }))
      assert.strictEqual(result.subagents[0]?.status, "completed")
      assert.strictEqual(toolResults.length, 1)
      assert.include(toolResults[0], "The answer is 42.")
      assert.include(toolResults[0], "researcher-1's transcript may be incomplete on disk")
      assert.include(toolResults[0], "EIO")
    } finally {
      await host.dispose()
      await server.close()
    }
  })
})
