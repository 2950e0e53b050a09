import { conformanceScript, subagentProviderSuite } from "@dsh/subagent/testing"
import { Effect } from "effect"
import { dshAgent, makeEnv, writeScript } from "./support.ts"

// The conformance suite every backend runs, here against real `dsh acp` children (the built
// CLI over stdio) whose model is the scripted conformance script. ACP children are one-shot.
const script = writeScript(conformanceScript)

subagentProviderSuite(
  "acp (acp:dsh)",
  makeEnv({ agents: [dshAgent], script }).pipe(Effect.map((env) => ({ subagents: env.subagents, parent: env.parent, agentType: "acp:dsh" }))),
  {}
)
