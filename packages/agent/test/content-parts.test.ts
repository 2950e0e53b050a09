import { copyFile, mkdtemp, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Events, type Messages, Usage } from "@dsh/core"
import { LanguageModel } from "@dsh/llm"
import { FileSessionStore } from "@dsh/session"
import { Toolbox } from "@dsh/tools"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { AgentRunner, TranscriptView } from "../src/index.ts"

const tempHome = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(join(tmpdir(), "dsh-parts-"))),
  (home) => Effect.promise(() => rm(home, { recursive: true, force: true }))
)

/** A model that answers with `parts` and keeps every request it got. */
const recordingModel = (parts: ReadonlyArray<LanguageModel.StreamPart>) => {
  const requests: Array<LanguageModel.ModelRequest> = []
  const model = LanguageModel.make({
    provider: "anthropic",
    model: "fake",
    stream: (request) => Stream.suspend(() => {
      requests.push(request)
      return Stream.fromIterable(parts)
    })
  })
  return { model, requests }
}

const image = { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" } as const
const thought = { type: "reasoning", text: "look closely", provider: "anthropic", signature: "sig-1" } as const

const turn = (home: string, sessionId: string, model: ReturnType<typeof recordingModel>["model"], prompt: string, promptParts?: ReadonlyArray<typeof image | { type: "text"; text: string }>) =>
  Effect.scoped(Effect.gen(function*() {
    const store = yield* FileSessionStore.make({ home })
    const session = yield* store.open(sessionId)
    return yield* AgentRunner.runPrompt({
      agent: "main",
      cwd: home,
      model,
      systemPrompt: "be brief",
      toolbox: Effect.succeed(Toolbox.make({ tools: [] })),
      transcript: session.transcript,
      prompt,
      promptParts
    })
  }))

describe("content parts through the turn loop and the file store", () => {
  it("a log line names a message's media", () => {
    assert.strictEqual(
      TranscriptView.eventLine({ type: "message", message: { role: "user", content: "see", parts: [{ type: "text", text: "see" }, image] } }),
      "user: see [image image/png]"
    )
  })

  it.live("a turn with an image and reasoning is persisted and replayed into the next request", () =>
    Effect.gen(function*() {
      const home = yield* tempHome
      const id = yield* Effect.scoped(Effect.gen(function*() {
        const store = yield* FileSessionStore.make({ home })
        return (yield* store.create({ agent: "coder", cwd: home, model: "anthropic:fake" })).id
      }))
      const first = recordingModel([
        { type: "reasoning-delta", text: "look closely" },
        { type: "reasoning", part: thought },
        { type: "warning", message: "a file was dropped" },
        { type: "text-delta", text: "a red square" },
        { type: "finish", reason: "stop", usage: Usage.emptyUsage }
      ])
      const result = yield* turn(home, id, first.model, "what is this?", [{ type: "text", text: "what is this?" }, image])
      assert.strictEqual(result.status, "completed")
      assert.deepStrictEqual(result.warnings, ["anthropic:fake: a file was dropped"])
      assert.deepStrictEqual(first.requests[0]?.messages.at(-1), {
        role: "user",
        content: "what is this?",
        parts: [{ type: "text", text: "what is this?" }, image]
      })

      // The drop is a notice in the transcript, for the user and a parent to see.
      const wire = (yield* Effect.promise(() => readFile(join(home, "sessions", id, "wire.jsonl"), "utf8")))
        .trim().split("\n").map((l) => JSON.parse(l) as Events.WireRecord)
      const notices = wire.filter((r) => r.type === "notice")
      assert.deepStrictEqual(notices.map((n) => n.type === "notice" ? [n.level, n.message] : []), [["warning", "anthropic:fake: a file was dropped"]])

      // A new store (a restart) replays the turn: the next request carries the image and the reasoning.
      const second = recordingModel([{ type: "text-delta", text: "ok" }, { type: "finish", reason: "stop", usage: Usage.emptyUsage }])
      yield* turn(home, id, second.model, "and now?")
      const replayed = second.requests[0]?.messages ?? []
      assert.deepStrictEqual(replayed.slice(1, 3), [
        { role: "user", content: "what is this?", parts: [{ type: "text", text: "what is this?" }, image] },
        { role: "assistant", content: "a red square", reasoning: [thought] }
      ] satisfies Array<Messages.Message>)
    }))

  it.live("a transcript written before content parts loads unchanged", () =>
    Effect.gen(function*() {
      const home = yield* tempHome
      const id = yield* Effect.scoped(Effect.gen(function*() {
        const store = yield* FileSessionStore.make({ home })
        return (yield* store.create({ agent: "coder", cwd: home, model: "scripted" })).id
      }))
      yield* Effect.promise(() => copyFile(join(import.meta.dirname, "fixtures", "wire-text-only.jsonl"), join(home, "sessions", id, "wire.jsonl")))
      const model = recordingModel([{ type: "text-delta", text: "still noon" }, { type: "finish", reason: "stop", usage: Usage.emptyUsage }])
      const result = yield* turn(home, id, model.model, "again?")
      assert.strictEqual(result.status, "completed")
      assert.deepStrictEqual(model.requests[0]?.messages.slice(1), [
        { role: "user", content: "what time is it?" },
        { role: "assistant", content: "", toolCalls: [{ id: "call_0_0", name: "Now", arguments: "{}" }] },
        { role: "tool", toolCallId: "call_0_0", name: "Now", content: "12:00" },
        { role: "assistant", content: "It is noon." },
        { role: "user", content: "again?" }
      ] satisfies Array<Messages.Message>)
    }))
})
