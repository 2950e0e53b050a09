import { SubagentProviderSuite } from "@dsh/subagent/conformance"
import { Conformance } from "@dsh/subagent/testing"
import { Effect } from "effect"
import { FakeAcpAgent } from "../src/testing.ts"
import { dshAgent, makeEnv, tempDir, writeScript } from "./support.ts"

// The conformance suite every backend runs, here against real `dsh acp` children (the built
// CLI over stdio) whose model is the scripted conformance script: continued warm, on the
// process kept alive after each run.
const script = writeScript(Conformance.conformanceScript)

SubagentProviderSuite.subagentProviderSuite(
  "acp (acp:dsh, continued warm)",
  makeEnv({ agents: [dshAgent], script }).pipe(Effect.map((env) => ({ subagents: env.subagents, parent: env.parent, agentType: "acp:dsh" }))),
  { continue: true, messages: true, progress: true }
)

// And against a vendor-like agent built with the ACP SDK: usage only in `usage_update`, never
// exits on EOF, ignores SIGTERM, loads sessions. No keep-alive: every continuation is cold,
// through `session/load` on a new process.
const vendor = FakeAcpAgent.fakeAcpAgent({ name: "vendor", usage: "update", exitOnEof: false, ignoreSigterm: true, loadSession: true, stateDir: tempDir("dsh-acp-vendor-state-") })

SubagentProviderSuite.subagentProviderSuite(
  "acp (a vendor-like agent, continued cold by session/load)",
  makeEnv({ agents: [vendor], provider: { keepAlive: 0 } }).pipe(Effect.map((env) => ({ subagents: env.subagents, parent: env.parent, agentType: "acp:vendor" }))),
  { continue: true, messages: true, progress: true }
)
