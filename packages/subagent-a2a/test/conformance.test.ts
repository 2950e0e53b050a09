import { SubagentProviderSuite } from "@dsh/subagent/conformance"
import { Effect } from "effect"
import { makeConformanceExecutor, serveEchoAgent } from "../src/testing.ts"
import { makeEnv } from "./support.ts"

// The suite every backend runs, against A2A children of an agent on the SDK's own server classes
// that answers the conformance prompts; continued by contextId, streamed and polled.
const envFor = (streaming: boolean) =>
  Effect.gen(function*() {
    const server = yield* Effect.acquireRelease(Effect.promise(() => serveEchoAgent({ streaming, executor: makeConformanceExecutor() })), (s) => Effect.promise(s.close))
    const env = yield* makeEnv([{ name: "conformance", url: server.url }])
    return { subagents: env.subagents, parent: env.parent, agentType: "a2a:conformance" }
  })

SubagentProviderSuite.subagentProviderSuite("a2a (streaming)", envFor(true), { continue: true, messages: true, progress: true })
SubagentProviderSuite.subagentProviderSuite("a2a (send and get-task)", envFor(false), { continue: true, messages: true })
