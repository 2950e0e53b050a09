import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { KillTree, LocalProcessLauncher, ProcessLauncher } from "../src/index.ts"
import { ProcessLauncherSuite } from "../src/conformance.ts"
import { ChildScripts, ProcessChecks } from "../src/testing.ts"

ProcessLauncherSuite.processLauncherSuite("LocalProcessLauncher", LocalProcessLauncher.layer({ killGrace: "1 second" }))

describe("LocalProcessLauncher defaults", () => {
  it.live("the launcher's killGrace applies when a spawn sets none", () =>
    Effect.gen(function*() {
      const pids = yield* ChildScripts.tempPidFile
      const launcher = LocalProcessLauncher.make({ killGrace: "200 millis" })
      const child = yield* launcher.spawn({ command: "bash", args: ["-c", ChildScripts.grandchildScript("ignore-term"), "bash", pids] })
      yield* ChildScripts.readUntil(child.stdout, "ready")
      yield* child.stop
      assert.strictEqual((yield* child.exit).signal, "SIGKILL", "the ladder escalated to SIGKILL after the launcher's grace")
      assert.deepStrictEqual(yield* ProcessChecks.survivors([child.pid!, ...ProcessChecks.readPids(pids)]), [], "the whole tree is gone after the ladder")
    }))

  it.live("parentEnv replaces process.env as the environment children inherit from", () =>
    Effect.gen(function*() {
      const launcher = LocalProcessLauncher.make({ parentEnv: () => ({ PATH: process.env.PATH, LANG: "xx_YY.UTF-8", OTHER: "no" }) })
      const result = yield* launcher.run({ command: "env" })
      assert.match(result.stdout, /^LANG=xx_YY\.UTF-8$/m, "an allowed variable comes from parentEnv")
      assert.notMatch(result.stdout, /^OTHER=/m, "parentEnv is scrubbed like process.env")
    }))
})

describe("killTree", () => {
  it.live("signals a running process and its descendants by pid", () =>
    Effect.gen(function*() {
      const pids = yield* ChildScripts.tempPidFile
      const launcher = yield* ProcessLauncher.ProcessLauncher
      const child = yield* launcher.spawn({ command: "bash", args: ["-c", ChildScripts.grandchildScript("wait"), "bash", pids] })
      yield* ChildScripts.readUntil(child.stdout, "ready")
      yield* KillTree.killTree(child.pid!, "SIGKILL")
      // tree-kill signals a process's children before the process itself, so under load bash may
      // see its sleeps killed and end its `wait` (which then returns 0) just before its own signal lands.
      const exit = yield* child.exit
      assert.isTrue(exit.signal === "SIGKILL" || exit.exitCode === 0, `killTree ended the child (${JSON.stringify(exit)})`)
      assert.deepStrictEqual(yield* ProcessChecks.survivors([child.pid!, ...ProcessChecks.readPids(pids)]), [], "the child and its descendants are gone")
    }).pipe(Effect.provide(LocalProcessLauncher.layer({ killGrace: "1 second" }))))
})
