import { assert, describe, it } from "@effect/vitest"
import { InMemoryRunner, LlmAgent } from "@google/adk"
import { RemoteA2AAgent } from "@google/adk/a2a"
import { Effect } from "effect"
import { readdirSync } from "node:fs"
import { join } from "node:path"
import { serveA2a } from "../src/serve.ts"
import { dshHost, HangingLlm, ScriptedLlm, serveAdkAgent, text, textsOf } from "./adk-support.ts"
import { makeEnv, tempDir } from "./support.ts"

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

  it.live("an ADK agent behind ADK's bearerTokenUserBuilder: headers from env reach it; without them, a failed child with one line", () =>
    Effect.gen(function*() {
      const model = new ScriptedLlm(() => text("authorised"))
      const server = yield* serveAdkAgent(new LlmAgent({ name: "vault", description: "keeps secrets", instruction: "Guard.", model }), { token: "s3cret" })
      const env = yield* makeEnv(
        [{ name: "vault", url: server.url, headers: { Authorization: "Bearer ${TOKEN}" }, env: { TOKEN: "${ADK_TEST_TOKEN}" } }, { name: "open", url: server.url }],
        { environment: { ADK_TEST_TOKEN: "s3cret" } }
      )
      const ok = yield* env.subagents.spawn({ prompt: "open up", description: "vault", agent: "a2a:vault" }, env.parent)
      assert.strictEqual(ok.status, "completed", ok.notes)
      assert.strictEqual(ok.output, "authorised")
      // ADK answers a refused request with HTTP 500 (its UserBuilder throws), not 401.
      const refused = yield* env.subagents.spawn({ prompt: "open up", description: "open", agent: "a2a:open" }, env.parent)
      assert.strictEqual(refused.status, "failed")
      assert.match(refused.notes ?? "", /^a2a:open: its stream failed: .*500/)
      assert.notInclude(refused.notes ?? "", "\n")
      assert.strictEqual(model.requests.length, 1)
    }).pipe(Effect.scoped), 60_000)

  it.live("an ADK agent that never answers: the child ends timeout though ADK refuses cancel-task", () =>
    Effect.gen(function*() {
      // ADK's A2AAgentExecutor throws on cancelTask ("not supported yet"): the child ends timeout regardless.
      const model = new HangingLlm()
      const agent = new LlmAgent({ name: "slow", description: "never done", instruction: "Take your time.", model })
      const server = yield* serveAdkAgent(agent)
      const env = yield* makeEnv([{ name: "slow", url: server.url, timeoutSeconds: 1 }])
      const r = yield* env.subagents.spawn({ prompt: "think", description: "slow", agent: "a2a:slow" }, env.parent)
      assert.strictEqual(r.status, "timeout", r.notes)
      assert.include(r.notes ?? "", "a2a:slow: no answer within its timeout_seconds = 1")
      model.release()
    }).pipe(Effect.scoped), 60_000)

  it.live("dsh served by serveA2a is consumed by ADK's RemoteA2AAgent: an ADK root agent delegates to it", () =>
    Effect.gen(function*() {
      const home = tempDir("dsh-a2a-adk-home-")
      const contextsDir = join(home, "a2a", "contexts")
      const served = yield* serveA2a({
        host: "127.0.0.1",
        port: 0,
        contextsDir,
        create: { cwd: tempDir("dsh-a2a-adk-cwd-") },
        name: "dsh",
        description: "a dsh agent with subagents",
        skills: [{ name: "helper", description: "helps with chores" }]
      }).pipe(Effect.provide(dshHost(home, { rules: [{ reply: { text: "dsh did: {{lastUser|firstLine}}" } }] })))

      // A client that names no version (v0.3, as ADK's @a2a-js/sdk 0.3 is) reads the v0.3 card; a v1.0 one the v1.0 card.
      const card = (headers: Record<string, string>) =>
        Effect.promise(() => fetch(`${served.url}.well-known/agent-card.json`, { headers }).then((r) => r.json() as Promise<Record<string, unknown>>))
      const legacy = yield* card({})
      assert.strictEqual(legacy.protocolVersion, "0.3.0")
      assert.strictEqual(legacy.url, served.url)
      assert.strictEqual(legacy.preferredTransport, "JSONRPC")
      const modern = yield* card({ "A2A-Version": "1.0" })
      assert.deepStrictEqual((modern.supportedInterfaces as Array<{ protocolVersion: string }>).map((i) => i.protocolVersion), ["1.0", "0.3"])

      const remote = new RemoteA2AAgent({ name: "dsh", description: "delegate chores to dsh", agentCard: served.url })
      // The root hands each user message to dsh (ADK routes every new message to the root: a
      // remote agent is not one it resumes), and is never asked again within the turn.
      const rootModel = new ScriptedLlm(() => ({ content: { role: "model", parts: [{ functionCall: { name: "transfer_to_agent", args: { agentName: "dsh" } } }] } }))
      const root = new LlmAgent({ name: "coordinator", description: "routes work", instruction: "Route work to dsh.", model: rootModel, subAgents: [remote] })
      const runner = new InMemoryRunner({ agent: root, appName: "interop" })
      const session = yield* Effect.promise(() => runner.sessionService.createSession({ appName: "interop", userId: "u" }))
      const say = (words: string) =>
        Effect.promise(async () => {
          const answers: Array<string> = []
          for await (const event of runner.runAsync({ userId: "u", sessionId: session.id, newMessage: { role: "user", parts: [{ text: words }] } })) {
            if (event.errorMessage !== undefined) answers.push(`error: ${event.errorMessage}`)
            if (event.author === "dsh" && event.partial !== true) for (const p of event.content?.parts ?? []) if (p.text !== undefined) answers.push(p.text)
          }
          return answers
        })

      // ADK sends the user's words, then "For context:" parts with the root agent's tool calls: dsh reads them all as its prompt.
      const first = yield* say("sweep the floor")
      assert.deepStrictEqual(first, ["dsh did: sweep the floor"])
      const second = yield* say("now the stairs")
      assert.deepStrictEqual(second, ["dsh did: now the stairs"])
      // Both messages carried the same contextId: one dsh session.
      assert.strictEqual(readdirSync(contextsDir).length, 1)
      assert.strictEqual(rootModel.requests.length, 2)
    }).pipe(Effect.scoped), 60_000)
})
