import { assert, describe, it } from "@effect/vitest"
import { Approval, type ApprovalRequest, approvalFromRules } from "@dsh/tools"
import { Effect } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { dshAgent, makeEnv, readJsonLines, writeScript } from "./support.ts"

// The child (`dsh acp` on a scripted model) writes a file; Write needs approval, so the child
// asks its client, the parent, whose approval rules decide.
const script = writeScript({
  name: "writer",
  rules: [
    { when: { lastUser: "^write (\\S+)", step: 0 }, reply: { text: "Writing.", toolCalls: [{ name: "Write", arguments: { path: "{{1}}", content: "hello from the child\n" } }] } },
    { when: { lastUser: "^write", step: 1 }, reply: { text: "Result: {{lastTool}}" } }
  ]
})

const spawnWriter = (rules: Parameters<typeof approvalFromRules>[0]) =>
  Effect.gen(function*() {
    const env = yield* makeEnv({ agents: [dshAgent], script })
    const asked: Array<ApprovalRequest> = []
    const approval = approvalFromRules(rules)
    const result = yield* env.subagents.spawn({ prompt: "write out.txt", description: "writer", agent: "acp:dsh" }, env.parent).pipe(
      Effect.provideService(Approval, { decide: (request) => Effect.sync(() => asked.push(request)).pipe(Effect.andThen(approval.decide(request))) })
    )
    return { env, result, asked }
  })

describe("subagent-acp permissions", () => {
  it.live("an inherited allow rule answers the child's permission request at once", () =>
    Effect.gen(function*() {
      const { env, result, asked } = yield* spawnWriter({ allow: ["Write"] })
      assert.strictEqual(result.status, "completed", result.notes)
      assert.include(result.output, "Result: Created out.txt")
      assert.strictEqual(readFileSync(join(env.cwd, "out.txt"), "utf8"), "hello from the child\n")
      assert.deepStrictEqual(asked.map((a) => [a.tool, a.agent]), [["Write", result.handle]])
      const wire = readJsonLines(join(env.sessionLocation, "agents", result.handle, "wire.jsonl"))
      // The request and its answer are in the transcript, after the call they are about.
      const call = wire.find((r) => r.type === "tool-call" && r.name === "Write")
      assert.isDefined(call)
      const permission = wire.find((r) => r.type === "permission")
      assert.deepInclude(permission, { id: call!.id, subject: "Write", decision: "allowed", via: "asked", by: "parent" })
      assert.isBelow(wire.indexOf(call!), wire.indexOf(permission!))
    }).pipe(Effect.scoped), 30_000)

  it.live("a non-interactive parent denies with a reason the child's model reads", () =>
    Effect.gen(function*() {
      const { env, result } = yield* spawnWriter({})
      assert.strictEqual(result.status, "completed", result.notes)
      assert.include(result.output, "permission denied: Write needs approval and this run is not interactive")
      assert.isFalse(existsSync(join(env.cwd, "out.txt")))
    }).pipe(Effect.scoped), 30_000)
})
