import { AgentHost } from "@dsh/agent"
import { Usage } from "@dsh/core"
import { assert, describe, it } from "@effect/vitest"
import { Permissions } from "@dsh/tools"
import { Effect, Fiber } from "effect"
import { type Methods, SdkClient, SdkServer, createSdkClient } from "../src/index.ts"
import { streamPair } from "./support.ts"

/**
 * A host whose prompt is one Bash call decided as a Toolbox decides it: by the Permissions of
 * the calling fiber (default mode: Bash asks), whose questions go to the server's Asker.
 */
const askingHost = (): AgentHost.AgentHostShape => ({
  createSession: (o) => Effect.succeed({ id: "s-1", agent: "agent", cwd: o.cwd, model: "fake:model", status: "idle", createdAt: "", updatedAt: "" }),
  loadSession: () => Effect.fail(new AgentHost.HostError({ reason: "NotFound", message: "no" })),
  listSessions: Effect.succeed([]),
  listChildren: () => Effect.succeed([]),
  sendToChild: () => Effect.fail(new AgentHost.HostError({ reason: "Unsupported", message: "no" })),
  stopChild: () => Effect.fail(new AgentHost.HostError({ reason: "Unsupported", message: "no" })),
  prompt: ({ sessionId, prompt }) =>
    Effect.gen(function*() {
      const permissions = yield* Permissions.make({ mode: "default" }).pipe(Effect.orDie)
      const decide = (agent: string) =>
        Effect.provideService(
          Effect.flatMap(Permissions.Permissions, (p) =>
            p.decide({ agent, cwd: "/work", subject: { tool: "Bash", kind: "execute", specifier: prompt, match: "text", forms: [prompt] }, summary: `$ ${prompt}` })),
          Permissions.Permissions,
          permissions
        )
      const first = yield* decide("main")
      const second = yield* decide("explore-1")
      const line = (d: typeof first) => `${d.allowed ? "allowed" : "denied"} via ${d.via}${d.by === undefined ? "" : ` by ${d.by}`}${d.reason === undefined ? "" : `: ${d.reason}`}`
      return { sessionId, status: "completed", result: `${line(first)} | ${line(second)}`, usage: Usage.emptyUsage, subagents: [] }
    })
})

const served = <A, E>(body: (pair: ReturnType<typeof streamPair>) => Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const pair = streamPair()
    const server = yield* Effect.forkChild(SdkServer.serveSdk({ ...pair.server }).pipe(Effect.provideService(AgentHost.AgentHost, askingHost())))
    const result = yield* body(pair)
    pair.client.output.end()
    yield* Fiber.join(server)
    return result
  })

describe("permission.ask (server → client)", () => {
  it.live("a client with onPermission is asked, one question at a time; 'session' answers the next one", () =>
    served((pair) =>
      Effect.scoped(Effect.gen(function*() {
        const asked: Array<Methods.PermissionAskParams> = []
        const client = yield* SdkClient.connect({
          ...pair.client,
          onPermission: (request) => Effect.sync(() => asked.push(request)).pipe(Effect.as({ allow: true, remember: "session" as const }))
        })
        const session = yield* client.createSession({ cwd: "/work" })
        const r = yield* client.prompt({ sessionId: session.id, prompt: "git push" })
        assert.strictEqual(r.result, "allowed via asked by sdk-client | allowed via rule")
        assert.strictEqual(asked.length, 1)
        assert.deepInclude(asked[0]!.question, { agent: "main", subject: "Bash(git push)", kind: "execute", specifier: "git push", reason: "mode: default", summary: "$ git push" })
      }))
    ))

  it.live("a client without it is never asked: the call is denied with a reason", () =>
    served((pair) =>
      Effect.scoped(Effect.gen(function*() {
        const client = yield* SdkClient.connect({ ...pair.client })
        const session = yield* client.createSession({ cwd: "/work" })
        const r = yield* client.prompt({ sessionId: session.id, prompt: "git push" })
        assert.include(r.result, "denied via asked by none: Bash(git push) needs approval (mode: default) and the SDK client does not answer permission requests")
      }))
    ))

  it.live("the Promise client answers with a function; a denial carries its reason", () =>
    served((pair) =>
      Effect.promise(async () => {
        const client = await createSdkClient({ ...pair.client, onPermission: async (req) => ({ allow: false, reason: `no ${req.question.specifier} today` }) })
        try {
          const session = await client.createSession({ cwd: "/work" })
          const r = await client.prompt({ sessionId: session.id, prompt: "git push" })
          assert.strictEqual(r.result, "denied via asked by sdk-client: no git push today | denied via asked by sdk-client: no git push today")
        } finally {
          await client.close()
        }
      })
    ))
})
