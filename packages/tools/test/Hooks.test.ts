import type { Events } from "@dsh/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Ref } from "effect"
import * as z from "zod"
import { Asker, Hooks, type PermissionPolicy, Permissions, Tool, Toolbox } from "../src/index.ts"

const hook = (event: Hooks.HookRegistration["event"], run: Hooks.HookRegistration["run"], matcher?: string): Hooks.HookRegistration => ({ event, name: `${event}-hook`, run, ...(matcher === undefined ? {} : { matcher }) })

const ran = Ref.makeUnsafe(0)
const echo = Tool.defineTool({
  name: "Bash",
  description: "runs",
  parameters: z.object({ command: z.string().describe("the command") }),
  permission: { kind: "execute", command: (p) => p.command },
  execute: (p) => Ref.update(ran, (n) => n + 1).pipe(Effect.as(`ran ${p.command}`))
})

const call = (command: string) => ({ id: "c1", name: "Bash", arguments: JSON.stringify({ command }) })

const withEvents = Effect.gen(function*() {
  const events = yield* Ref.make<Array<Events.AgentEvent>>([])
  const turn = { emit: (e: Events.AgentEvent) => Ref.update(events, (xs) => [...xs, e]), conversation: Effect.succeed([]), systemPrompt: "" }
  return { events, turn }
})

describe("Hooks", () => {
  it("matchers: a name, a whole-string regex, empty or * for all", () => {
    assert.isTrue(Hooks.compileMatcher("Bash")("Bash"))
    assert.isFalse(Hooks.compileMatcher("Bash")("BashX"))
    assert.isTrue(Hooks.compileMatcher("Edit|Write")("Write"))
    assert.isTrue(Hooks.compileMatcher("mcp__.*")("mcp__github__issue"))
    assert.isTrue(Hooks.compileMatcher("")("anything"))
    assert.isTrue(Hooks.compileMatcher("*")("anything"))
    assert.isTrue(Hooks.compileMatcher(undefined)(undefined))
  })

  it.effect("PreToolUse block: the tool does not run, the reason is the result, the run is an event", () =>
    Effect.gen(function*() {
      const { events, turn } = yield* withEvents
      const hooks = Hooks.make([hook("PreToolUse", (input) => Effect.succeed(String(JSON.stringify(input.tool_input)).includes("push") ? { decision: "block", reason: "no push" } : {}), "Bash")], { sessionId: "s" })
      const box = Toolbox.make({ tools: [echo] })
      const before = yield* Ref.get(ran)
      const blocked = yield* box.execute(call("git push"), { cwd: "/tmp", agent: "main", turn }).pipe(Effect.provideService(Hooks.Hooks, hooks))
      assert.strictEqual(blocked.content, "no push")
      assert.isTrue(blocked.isError)
      assert.strictEqual(yield* Ref.get(ran), before)
      const passed = yield* box.execute(call("ls"), { cwd: "/tmp", agent: "main", turn }).pipe(Effect.provideService(Hooks.Hooks, hooks))
      assert.strictEqual(passed.content, "ran ls")
      const recorded = (yield* Ref.get(events)).filter((e) => e.type === "hook")
      assert.deepStrictEqual(recorded.map((e) => e.type === "hook" ? [e.event, e.outcome, e.id] : []), [["PreToolUse", "block", "c1"], ["PreToolUse", "continue", "c1"]])
    }))

  it.effect("a hook that dies is a warning, and the call goes on", () =>
    Effect.gen(function*() {
      const { events, turn } = yield* withEvents
      const hooks = Hooks.make([hook("PreToolUse", () => Effect.die("boom"))], { sessionId: "s" })
      const r = yield* Toolbox.make({ tools: [echo] }).execute(call("ls"), { cwd: "/tmp", agent: "main", turn }).pipe(Effect.provideService(Hooks.Hooks, hooks))
      assert.strictEqual(r.content, "ran ls")
      const [e] = (yield* Ref.get(events)).filter((x) => x.type === "hook")
      assert.strictEqual(e?.type === "hook" ? e.outcome : undefined, "warning")
    }))

  it.effect("permissionDecision allow answers a question; deny rules still win; ask beats allow", () =>
    Effect.gen(function*() {
      const allow = Hooks.make([hook("PreToolUse", () => Effect.succeed({ permissionDecision: "allow" }))], { sessionId: "s" })
      const box = Toolbox.make({ tools: [echo] })
      const run = (settings: PermissionPolicy.PermissionSettings, hooks: typeof allow) =>
        Effect.flatMap(Permissions.make(settings), (p) =>
          box.execute(call("ls"), { cwd: "/tmp", agent: "main" }).pipe(
            Effect.provideService(Permissions.Permissions, p),
            Effect.provideService(Hooks.Hooks, hooks),
            Effect.provideService(Asker.Asker, Asker.nobodyAsker())
          ))
      assert.strictEqual((yield* run({ mode: "default" }, allow)).content, "ran ls")
      assert.include((yield* run({ deny: ["Bash(ls)"] }, allow)).content, "is denied by the rule")
      const both = Hooks.make([
        hook("PreToolUse", () => Effect.succeed({ permissionDecision: "allow" })),
        hook("PreToolUse", () => Effect.succeed({ permissionDecision: "ask" }))
      ], { sessionId: "s" })
      // A rule allows, but a hook asks: no one can answer, so it is denied.
      assert.include((yield* run({ allow: ["Bash"] }, both)).content, "permission denied")
    }))

  it.effect("forAgent adds an agent's own hooks on top of the tree's, never on top of another agent's", () =>
    Effect.gen(function*() {
      const seen = yield* Ref.make<Array<string>>([])
      const note = (name: string): Hooks.HookRegistration => ({ event: "PostToolUse", name, run: () => Ref.update(seen, (xs) => [...xs, name]).pipe(Effect.as({})) })
      const tree = Hooks.make([note("tree")], { sessionId: "s", agentHooks: (agent) => [note(agent)] })
      const a = tree.forAgent("a", {})
      yield* a.forAgent("b", {}).run("PostToolUse", { input: { cwd: "/" } })
      assert.deepStrictEqual([...(yield* Ref.get(seen))].sort(), ["b", "tree"])
    }))
})
