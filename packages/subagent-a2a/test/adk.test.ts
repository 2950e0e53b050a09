import { assert, describe, it } from "@effect/vitest"
import { LlmAgent } from "@google/adk"
import { Effect } from "effect"
import { ScriptedLlm, serveAdkAgent, text, textsOf } from "./adk-support.ts"
import { makeEnv } from "./support.ts"

// Interop with software no one here wrote: Google ADK's A2A server (`toA2a`, @a2a-js/sdk 0.3 inside,
// so a v0.3 peer reached through the SDK's legacyCompat layer).
describe("subagent-a2a against Google ADK", () => {
  it.live("an ADK agent served by toA2a is a dsh child; send_message continues its context", () =>
    Effect.gen(function*() {
      const model = new ScriptedLlm((request) => {
        const said = textsOf(request, "user")
        return text(`ADK heard "${said.at(-1)}" (${said.length} user turn${said.length === 1 ? "" : "s"})`)
      })
      const agent = new LlmAgent({ name: "planner", description: "plans trips with ADK", instruction: "You plan trips.", model })
      const server = yield* serveAdkAgent(agent)
      const env = yield* makeEnv([{ name: "planner", url: server.url }])
      assert.deepStrictEqual(env.backend.statuses, [{ name: "planner", url: server.url, status: "ok" }])
      const [type] = yield* env.subagents.availableTypes(env.parent)
      assert.strictEqual(type?.name, "a2a:planner")
      assert.include(type?.description ?? "", "plans trips with ADK")

      const first = yield* env.subagents.spawn({ prompt: "Lisbon in May", description: "plan", agent: "a2a:planner" }, env.parent)
      assert.strictEqual(first.status, "completed", first.notes)
      assert.strictEqual(first.output, `ADK heard "Lisbon in May" (1 user turn)`)

      const next = yield* env.subagents.send(first.handle, "and Porto after", "user")
      assert.strictEqual(next._tag, "Replied")
      if (next._tag === "Replied") {
        assert.strictEqual(next.result.status, "completed", next.result.notes)
        // ADK's session for the contextId holds the first turn: the same conversation.
        assert.strictEqual(next.result.output, `ADK heard "and Porto after" (2 user turns)`)
      }
      assert.strictEqual(model.requests.length, 2)
    }).pipe(Effect.scoped), 60_000)
})
