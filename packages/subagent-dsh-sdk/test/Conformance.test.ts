import { SubagentProviderSuite } from "@dsh/subagent/conformance"
import { Conformance } from "@dsh/subagent/testing"
import { LocalProcessLauncher } from "@dsh/subprocess"
import { Effect } from "effect"
import { join } from "node:path"
import { DshSdkProvider } from "../src/index.ts"
import { DSH_MAIN, makeTree, parentInfo, sdkType, specModel, tempDir, writeJson } from "./support.ts"

/** The shared conformance suite, with real `dsh sdk` children on the scripted model. */
const script = writeJson(join(tempDir(), "conformance.json"), Conformance.conformanceScript)

SubagentProviderSuite.subagentProviderSuite(
  "dsh-sdk (sdk:dsh)",
  Effect.gen(function*() {
    const home = tempDir()
    const provider = yield* DshSdkProvider.make({ command: process.execPath, args: [DSH_MAIN, "sdk"], cancelGrace: "1 second" })
    const { subagents } = yield* makeTree(home, [provider], [sdkType()])
    return { subagents, parent: parentInfo(home, specModel("scripted", script)), agentType: "sdk:dsh" }
  }).pipe(Effect.provide(LocalProcessLauncher.layer())),
  // Each child is a dsh runtime of its own: continuable, and it hears messages sent meanwhile.
  { continue: true, messages: true, progress: true }
)
