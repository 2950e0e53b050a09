import { assert, describe, it } from "@effect/vitest"
import { FixtureProvider } from "@dsh/subagent/testing"
import { LocalProcessLauncher } from "@dsh/subprocess"
import { ProcessChecks } from "@dsh/subprocess/testing"
import { Effect } from "effect"
import { join } from "node:path"
import { DshSdkProvider } from "../src/index.ts"
import { fakeChildScript, makeTree, parentInfo, readJsonLines, sdkType, specModel, tempDir } from "./support.ts"

const dir = tempDir()
const script = fakeChildScript(dir)

/**
 * Each fault against one tree: the child ends with a clear status and reason, its whole process
 * tree is gone, and the parent's tree goes on working.
 */
const faults = [
  { mode: "crash", status: "failed", notes: ["ended unexpectedly", "exited with code 7", "segfault (simulated)"], usage: 3 },
  { mode: "garbage", status: "failed", notes: ["broke the protocol", "Traceback"], usage: 3 },
  { mode: "oversized", status: "failed", notes: ["oversized frame"], usage: 3 },
  { mode: "silent", status: "failed", notes: ["did not become ready", "initialize"], usage: 0 },
  // A timed-out child keeps what it used before it was stopped.
  { mode: "hang", status: "timeout", notes: ["did not finish within"], usage: 3 }
] as const

describe("dsh-sdk backend faults", () => {
  for (const fault of faults) {
    it.live(`${fault.mode}: ends as ${fault.status} with the reason; no process left; the parent goes on`, () =>
      Effect.scoped(Effect.gen(function*() {
        const home = tempDir()
        const pids = join(home, "pids")
        const provider = yield* DshSdkProvider.make({
          command: process.execPath,
          args: [script, fault.mode, pids],
          handshakeTimeout: "1 second",
          cancelGrace: "200 millis",
          exitGrace: "200 millis",
          killGrace: "300 millis"
        }).pipe(Effect.provide(LocalProcessLauncher.layer()))
        const fixture = FixtureProvider.make({ reply: () => ({ output: "still fine", tokens: 1 }) })
        const { subagents, tree } = yield* makeTree(home, [provider, fixture], [
          sdkType(),
          { ...sdkType("fixture"), name: "fixture" }
        ])
        const parent = parentInfo(home, specModel("scripted", "unused"))
        const r = yield* subagents.spawn({ prompt: "go", description: fault.mode, agent: "sdk:dsh", timeoutSeconds: 2 }, parent)
        assert.strictEqual(r.status, fault.status, r.notes)
        for (const part of fault.notes) assert.include(r.notes ?? "", part)
        assert.strictEqual(r.usage.totalTokens, fault.usage)
        assert.strictEqual(tree.descriptors.get(r.handle)?.status, fault.status)
        const recorded = ProcessChecks.readPids(pids)
        assert.lengthOf(recorded, 2) // the child and its own background child
        assert.deepStrictEqual(yield* ProcessChecks.survivors(recorded, 500), [])
        if (fault.usage > 0) {
          const wire = readJsonLines(r.transcript!)
          assert.deepStrictEqual(wire.map((w) => w.type), ["turn-start", "usage"])
        }
        const after = yield* subagents.spawn({ prompt: "next", description: "after", agent: "fixture" }, parent)
        assert.strictEqual(after.output, "still fine")
      })))
  }
})
