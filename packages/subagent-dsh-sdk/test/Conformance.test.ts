import { assert, describe, it } from "@effect/vitest"
import { conformanceChecks, conformanceScript } from "@dsh/subagent/testing"
import { LocalProcessLauncher } from "@dsh/subprocess"
import { Effect } from "effect"
import { join } from "node:path"
import { makeDshSdkProvider } from "../src/index.ts"
import { DSH_MAIN, makeTree, parentInfo, sdkType, specModel, tempDir, writeJson } from "./support.ts"

/** The shared conformance checks, with real `dsh sdk` children on the scripted model. */
describe("dsh-sdk backend: conformance", () => {
  const script = writeJson(join(tempDir(), "conformance.json"), conformanceScript)
  for (const check of conformanceChecks) {
    it.live(check.name, () =>
      Effect.scoped(Effect.gen(function*() {
        const home = tempDir()
        const provider = yield* makeDshSdkProvider({ command: process.execPath, args: [DSH_MAIN, "sdk"], cancelGrace: "1 second" })
        const { subagents } = yield* makeTree(home, [provider], [sdkType()])
        const parent = parentInfo(home, specModel("scripted", script))
        const outcome = yield* Effect.result(check.run({ subagents, parent, agentType: "sdk:dsh" }))
        assert.isTrue(outcome._tag === "Success", outcome._tag === "Failure" ? outcome.failure : "")
      }).pipe(Effect.provide(LocalProcessLauncher.layer()))))
  }
})
