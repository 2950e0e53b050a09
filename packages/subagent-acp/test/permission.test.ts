import { assert, describe, it } from "@effect/vitest"
import { Asker, type PermissionPolicy, Permissions } from "@dsh/tools"
import { Effect } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { dshAgent, makeEnv, readJsonLines, writeScript } from "./support.ts"

// The child (`dsh acp` on a scripted model) writes a file; Write asks in the child's default
// mode, so the child asks its client, the parent, whose permission rules decide.
const script = writeScript({
  name: "writer",
  rules: [
    { when: { lastUser: "^write (\\S+)", step: 0 }, reply: { text: "Writing.", toolCalls: [{ name: "Write", arguments: { path: "{{1}}", content: "hello from the child\n" } }] } },
    { when: { lastUser: "^write", step: 1 }, reply: { text: "Result: {{lastTool}}" } }
  ]
})

const spawnWriter = (settings: PermissionPolicy.PermissionSettings | undefined) =>
  Effect.gen(function*() {
    const env = yield* makeEnv({ agents: [dshAgent], script })
    const asked: Array<Asker.PermissionQuestion> = []
    const asker = { ask: (q: Asker.PermissionQuestion) => Effect.sync(() => asked.push(q)).pipe(Effect.as({ allow: false, by: "test" })) }
    const spawn = env.subagents.spawn({ prompt: "write out.txt", description: "writer", agent: "acp:dsh" }, env.parent).pipe(
      Effect.provideService(Asker.Asker, asker)
    )
    const result = yield* (settings === undefined ? spawn : Effect.provideService(spawn, Permissions.Permissions, yield* Permissions.make(settings)))
    return { env, result, asked }
  })

describe("subagent-acp permissions", () => {
  it.live("an inherited allow rule answers the child's permission request at once", () =>
    Effect.gen(function*() {
      const { env, result, asked } = yield* spawnWriter({ allow: ["Edit(out.txt)"] })
      assert.strictEqual(result.status, "completed", result.notes)
      assert.include(result.output, "Result: Created out.txt")
      assert.strictEqual(readFileSync(join(env.cwd, "out.txt"), "utf8"), "hello from the child\n")
      assert.deepStrictEqual(asked, [], "a rule answered: no one was asked")
      const wire = readJsonLines(join(env.sessionLocation, "agents", result.handle, "wire.jsonl"))
      // The child's `edit` tool call with its path is `Edit(out.txt)` to the parent's rules; the
      // decision is in the transcript, after the call it is about.
      const call = wire.find((r) => r.type === "tool-call" && r.name === "Write")
      assert.isDefined(call)
      const permission = wire.find((r) => r.type === "permission")
      assert.deepInclude(permission, { id: call!.id, subject: "Edit(out.txt)", decision: "allowed", via: "rule", rule: "allow: Edit(out.txt)" })
      assert.isBelow(wire.indexOf(call!), wire.indexOf(permission!))
    }).pipe(Effect.scoped), 30_000)

  it.live("a non-interactive parent denies with a reason the child's model reads", () =>
    Effect.gen(function*() {
      // Without any rules of the tree, a child that asks is decided by the default mode: asked, and here no one says yes.
      const { env, result, asked } = yield* spawnWriter(undefined)
      assert.strictEqual(result.status, "completed", result.notes)
      assert.include(result.output, "permission denied: test declined Edit(out.txt)")
      assert.deepStrictEqual(asked.map((q) => [q.subject, q.agent, q.reason]), [["Edit(out.txt)", result.handle, "mode: default"]])
      assert.isFalse(existsSync(join(env.cwd, "out.txt")))
    }).pipe(Effect.scoped), 30_000)
})
