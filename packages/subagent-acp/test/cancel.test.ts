import { assert, describe, it } from "@effect/vitest"
import { ProcessChecks } from "@dsh/subprocess/testing"
import { Permissions } from "@dsh/tools"
import { Deferred, Effect, Fiber } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { makeEnv, unconfinedDshAgent, readJsonLines, tempDir, writeScript } from "./support.ts"

/** The pids recorded so far; none until the script has written the file. */
const pidsIn = (file: string): Array<number> => existsSync(file) ? ProcessChecks.readPids(file) : []

/** Polls a condition (no sleeps as signals: this only waits for something observable). */
const until = (condition: () => boolean, attempts: number) =>
  Effect.gen(function*() {
    for (let i = 0; i < attempts && !condition(); i++) yield* Effect.sleep(20)
    return condition()
  })

// The child runs Bash, which starts two background sleeps and waits: a turn that never ends.
const script = writeScript({
  name: "sleepers",
  rules: [{
    when: { lastUser: "^run sleepers (\\S+)", step: 0 },
    reply: {
      text: "Starting the sleepers.",
      toolCalls: [{ name: "Bash", arguments: { command: "echo $$ >> {{1}}; sleep 300 & echo $! >> {{1}}; sleep 300 & echo $! >> {{1}}; wait" } }]
    }
  }]
})

describe("subagent-acp cancellation", () => {
  it.live("cancelling the parent mid-turn ends the child and every process it started", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv({ agents: [unconfinedDshAgent], script })
      const pidFile = join(tempDir(), "pids")
      const started = yield* Deferred.make<string>()
      const parent = {
        ...env.parent,
        onEvent: (event: { type: string; handle?: string }) =>
          event.type === "subagent-start" && event.handle !== undefined ? Deferred.succeed(started, event.handle).pipe(Effect.asVoid) : Effect.void
      }
      const fiber = yield* Effect.forkChild(
        env.subagents.spawn({ prompt: `run sleepers ${pidFile}`, description: "sleepers", agent: "acp:dsh" }, parent).pipe(
          Effect.provideService(Permissions.Permissions, yield* Permissions.make({ allow: ["Bash"] }))
        )
      )
      const handle = yield* Deferred.await(started)
      // Mid-turn: bash and both sleeps are running.
      assert.isTrue(yield* until(() => pidsIn(pidFile).length === 3, 500), "the sleepers never started")
      const meta = JSON.parse(readFileSync(join(env.sessionLocation, "agents", handle, "meta.json"), "utf8")) as { pid: number }
      const all = [meta.pid, ...pidsIn(pidFile)]
      assert.isTrue(all.every((pid) => !ProcessChecks.isGone(pid)), "a process was gone before the cancel")

      const cancelledAt = Date.now()
      yield* Fiber.interrupt(fiber)
      const gone = yield* until(() => all.every(ProcessChecks.isGone), 250)
      const elapsed = Date.now() - cancelledAt
      assert.isTrue(gone, `still running: ${all.filter((p) => !ProcessChecks.isGone(p)).join(", ")}`)
      assert.isBelow(elapsed, 4000, "the process tree took too long to go")

      // The child is recorded as cancelled, and its transcript says what it was doing.
      assert.strictEqual(env.subagents.tree.descriptors.get(handle)?.status, "cancelled")
      const wire = readJsonLines(join(env.sessionLocation, "agents", handle, "wire.jsonl"))
      assert.includeMembers(wire.map((r) => r.type), ["turn-start", "tool-call", "turn-end"])
      assert.strictEqual(wire.at(-1)?.status, "cancelled")
    }).pipe(Effect.scoped), 30_000)
})
