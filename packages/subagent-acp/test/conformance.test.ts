import { describe, it } from "@effect/vitest"
import { conformanceChecks, conformanceScript } from "@dsh/subagent/testing"
import { Effect } from "effect"
import { dshAgent, makeEnv, writeScript } from "./support.ts"

// The conformance suite every backend runs, here against real `dsh acp` children (the built
// CLI over stdio) whose model is the scripted conformance script.
const script = writeScript(conformanceScript)

describe("subagent-acp conformance (acp:dsh)", () => {
  for (const check of conformanceChecks) {
    it.live(check.name, () =>
      makeEnv({ agents: [dshAgent], script }).pipe(
        Effect.flatMap((env) => check.run({ subagents: env.subagents, parent: env.parent, agentType: "acp:dsh" })),
        Effect.mapError((e) => new Error(typeof e === "string" ? e : String(e))),
        Effect.scoped
      ), 30_000)
  }
})
