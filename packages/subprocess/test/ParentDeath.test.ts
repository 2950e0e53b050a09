import { assert, describe, it } from "@effect/vitest"
import { Effect, Schedule } from "effect"
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { resolve } from "node:path"
import { ChildScripts, ProcessChecks } from "../src/testing.ts"

// A process that launched children is killed with SIGKILL: none of its finalizers run, yet
// its child and the child's whole process group must not outlive it.
const FIXTURE = resolve(import.meta.dirname, "fixtures/launch-and-hang.ts")

const killedLauncher = (pids: string, mode: "on" | "off") =>
  Effect.gen(function*() {
    const parent = spawn(process.execPath, ["--conditions=@dsh/source", FIXTURE, pids, mode], { stdio: "ignore" })
    // Its child (which ignores SIGTERM) and both grandchildren are running.
    const ready = yield* Effect.sync(() => existsSync(`${pids}.ready`)).pipe(
      Effect.repeat({ schedule: Schedule.spaced("20 millis"), until: (r) => r, times: 1500 })
    )
    assert.isTrue(ready, "the launcher never started its child")
    const tree = ProcessChecks.readPids(pids)
    assert.lengthOf(tree, 3)
    assert.isTrue(tree.every((pid) => !ProcessChecks.isGone(pid)))
    parent.kill("SIGKILL")
    return tree
  })

describe("children die with the process that launched them", () => {
  it.live("after a kill -9 of the launching process, its child and the child's group are gone", () =>
    Effect.gen(function*() {
      const tree = yield* killedLauncher(yield* ChildScripts.tempPidFile, "on")
      assert.deepStrictEqual(yield* ProcessChecks.survivors(tree, 500), [], "a process outlived the kill -9 of its launcher")
    }).pipe(Effect.scoped), 60_000)

  it.live("without dieWithParent they would outlive it (the check above can fail)", () =>
    Effect.gen(function*() {
      const tree = yield* killedLauncher(yield* ChildScripts.tempPidFile, "off")
      const left = yield* ProcessChecks.survivors(tree, 50)
      for (const pid of left) process.kill(pid, "SIGKILL")
      assert.deepStrictEqual(left, tree, "the orphans should have survived without the mechanism")
    }).pipe(Effect.scoped), 60_000)
})
