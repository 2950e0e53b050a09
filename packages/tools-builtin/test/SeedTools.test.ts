import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import type { Events, Messages } from "@dsh/core"
import { type Tool, Toolbox } from "@dsh/tools"
import { LocalProcessLauncher } from "@dsh/subprocess"
import { ProcessChecks } from "@dsh/subprocess/testing"
import { AgentTree, TreeText } from "@dsh/view"
import { Effect, Exit, Scope } from "effect"
import { BuiltinTools, Skills } from "../src/index.ts"
import { tempDir } from "./support.ts"

/** One agent run as the turn loop gives it to tools: an event sink and the run's scope. */
const run = (options: { readonly skills?: { readonly userHome?: string } } = {}) =>
  Effect.gen(function*() {
    const box: Toolbox.Toolbox = yield* BuiltinTools.makeWith({ skills: options.skills }).pipe(
      Effect.map((tools) => Toolbox.make({ tools })),
      Effect.provide(LocalProcessLauncher.layer({ killGrace: "1 second" }))
    )
    const scope = yield* Scope.make()
    const events: Array<Events.AgentEvent> = []
    const turn: Tool.TurnInfo = {
      emit: (e) => Effect.sync(() => events.push(e)),
      conversation: Effect.succeed([]),
      systemPrompt: "",
      scope
    }
    let n = 0
    const call = (cwd: string, name: string, args: unknown): Effect.Effect<Messages.ToolMessage> =>
      box.execute({ id: `c${++n}`, name, arguments: JSON.stringify(args) }, { cwd, agent: "main", turn })
    return { call, events, scope }
  })

describe("TodoWrite", () => {
  it.live("persists the whole list as a todo event, and the live tree shows the item in progress", () =>
    Effect.gen(function*() {
      const r = yield* run()
      const todos: ReadonlyArray<Events.TodoItem> = [
        { content: "Read the code", status: "completed" },
        { content: "Run the tests", status: "in_progress", activeForm: "Running the tests" },
        { content: "Fix the bug", status: "pending" }
      ]
      const result = yield* r.call(tempDir(), "TodoWrite", { todos })
      assert.strictEqual(result.content, "Todo list updated.\n[x] Read the code\n[~] Run the tests\n[ ] Fix the bug")
      assert.deepStrictEqual(r.events, [{ type: "todo", todos }])
      const tree = AgentTree.make()
      tree.apply("main", { type: "turn-start", turn: 1, prompt: "go" }, 0)
      tree.apply("main", r.events[0]!, 1)
      assert.strictEqual(tree.main.todo, "Running the tests")
      assert.include(TreeText.renderTreeLines(tree, { now: 2 })[0], "[todo: Running the tests]")
      const bad = yield* r.call(tempDir(), "TodoWrite", { todos: [{ content: "x", status: "doing" }] })
      assert.include(bad.content, "invalid arguments for TodoWrite")
    }))
})

describe("BashBackground", () => {
  it.live("starts a command, reads only new output, stops it; a cancelled run stops the rest", () =>
    Effect.gen(function*() {
      const cwd = tempDir()
      const r = yield* run()
      const started = yield* r.call(cwd, "BashBackground", {
        command: "echo one; echo oops >&2; sleep 300"
      })
      assert.match(started.content, /^Started bg-1 \(pid \d+\)/)
      const pid = Number(/pid (\d+)/.exec(started.content)![1])
      // Output arrives when the command writes it: read until both lines are there.
      let seen = ""
      while (!seen.includes("oops")) seen += (yield* r.call(cwd, "BashOutput", { id: "bg-1" })).content
      assert.include(seen, "[bg-1 running]")
      assert.include(seen, "one\noops")
      const again = yield* r.call(cwd, "BashOutput", { id: "bg-1" })
      assert.strictEqual(again.content, "[bg-1 running]\n(no new output)")
      const stopped = yield* r.call(cwd, "BashStop", { id: "bg-1" })
      assert.strictEqual(stopped.content, "Stopped bg-1.")
      assert.deepStrictEqual(yield* ProcessChecks.survivors([pid]), [])
      assert.strictEqual((yield* r.call(cwd, "BashOutput", { id: "bg-1" })).content, "[bg-1 stopped]\n(no new output)")

      const second = yield* r.call(cwd, "BashBackground", { command: "sleep 300 & echo \"child $!\"; wait" })
      const pid2 = Number(/pid (\d+)/.exec(second.content)![1])
      assert.match(second.content, /^Started bg-2/)
      // The grandchild's pid, once the shell has printed it (before that it may not exist yet).
      // (One `echo` is one write: the line arrives whole.)
      let printed = ""
      while (!/child \d+/.test(printed)) printed += (yield* r.call(cwd, "BashOutput", { id: "bg-2" })).content
      const grandchild = Number(/child (\d+)/.exec(printed)![1])
      // A cancelled run does not wait: its commands are stopped.
      yield* Scope.close(r.scope, Exit.interrupt(0))
      assert.deepStrictEqual(yield* ProcessChecks.survivors([pid2, grandchild]), [])
      const other = yield* run()
      assert.include((yield* other.call(cwd, "BashOutput", { id: "bg-2" })).content, "No background command bg-2 in this run.")
    }))

  it.live("a run that ends normally is over only when its background commands have settled", () =>
    Effect.gen(function*() {
      const cwd = tempDir()
      const r = yield* run()
      const started = yield* r.call(cwd, "BashBackground", { command: "sleep 1; echo settled > marker" })
      const pid = Number(/pid (\d+)/.exec(started.content)![1])
      yield* Scope.close(r.scope, Exit.void)
      assert.strictEqual(readFileSync(join(cwd, "marker"), "utf8"), "settled\n")
      assert.deepStrictEqual(yield* ProcessChecks.survivors([pid]), [])
    }))

  it.live("is the permission subject Bash(<command>)", () =>
    Effect.gen(function*() {
      const { Permissions: { Permissions, make: makePermissions } } = yield* Effect.promise(() => import("@dsh/tools"))
      const r = yield* run()
      const denied = yield* r.call(tempDir(), "BashBackground", { command: "rm -rf x" }).pipe(
        Effect.provideService(Permissions, yield* makePermissions({ mode: "bypass", deny: ["Bash(rm *)"] }))
      )
      assert.include(denied.content, "Bash(rm -rf x) is denied by the rule \"Bash(rm *)\"")
      yield* Scope.close(r.scope, Exit.interrupt(0))
    }))
})

describe("Skills", () => {
  it.live("lists SKILL.md folders by name and description and loads one with its files", () =>
    Effect.gen(function*() {
      const cwd = tempDir()
      const home = tempDir()
      mkdirSync(join(cwd, ".git"))
      mkdirSync(join(cwd, ".agents", "skills", "release", "scripts"), { recursive: true })
      writeFileSync(join(cwd, ".agents", "skills", "release", "SKILL.md"), "---\nname: release\ndescription: Cut a release of this repo.\n---\nRun scripts/cut.sh, then tag.\n")
      writeFileSync(join(cwd, ".agents", "skills", "release", "scripts", "cut.sh"), "echo cut\n")
      mkdirSync(join(home, ".agents", "skills", "pdf"), { recursive: true })
      writeFileSync(join(home, ".agents", "skills", "pdf", "SKILL.md"), "---\ndescription: >\n  Fill PDF forms.\n---\nUse pdftk.\n")
      mkdirSync(join(home, ".agents", "skills", "broken"), { recursive: true })
      writeFileSync(join(home, ".agents", "skills", "broken", "SKILL.md"), "no frontmatter, no description\n")
      const skills = yield* Skills.discoverSkills(cwd, { userHome: home })
      assert.deepStrictEqual(skills.map((s) => [s.name, s.description, s.scope]), [
        ["release", "Cut a release of this repo.", "project"],
        ["pdf", "Fill PDF forms.", "user"]
      ])
      assert.include(Skills.renderSkillList(skills), "- `release`: Cut a release of this repo.\n- `pdf`: Fill PDF forms.")
      const r = yield* run({ skills: { userHome: home } })
      const loaded = yield* r.call(cwd, "Skill", { name: "release" })
      assert.include(loaded.content, "# Skill release")
      assert.include(loaded.content, "Run scripts/cut.sh, then tag.")
      assert.include(loaded.content, "Files:\n- SKILL.md\n- scripts/cut.sh")
      const missing = yield* r.call(cwd, "Skill", { name: "nope" })
      assert.strictEqual(missing.content, "Error: no skill named nope; available: release, pdf")
    }))
})

describe("plan mode", () => {
  it.live("withholds write tools until the plan is approved through ExitPlanMode's permission question", () =>
    Effect.gen(function*() {
      const { Asker: { Asker }, Permissions: { Permissions, make: makePermissions } } = yield* Effect.promise(() => import("@dsh/tools"))
      const cwd = tempDir()
      const r = yield* run()
      assert.include((yield* r.call(cwd, "EnterPlanMode", {})).content, "Plan mode is on")
      const refused = yield* r.call(cwd, "Write", { path: "a.txt", content: "x" })
      assert.isTrue(refused.isError)
      assert.include(refused.content, "Write is not available in plan mode")
      assert.isTrue((yield* r.call(cwd, "Bash", { command: "touch b" })).isError)
      // Reading still works.
      assert.isUndefined((yield* r.call(cwd, "Glob", { pattern: "*" })).isError)
      const answers = [false, true]
      const asked: Array<string> = []
      const asker = {
        ask: (q: { readonly summary: string }) =>
          Effect.sync(() => {
            asked.push(q.summary)
            return answers.shift()! ? { allow: true, by: "user" } : { allow: false, by: "user", reason: "not yet" }
          })
      }
      const permissions = yield* makePermissions({})
      const exit = (plan: string) =>
        r.call(cwd, "ExitPlanMode", { plan }).pipe(Effect.provideService(Permissions, permissions), Effect.provideService(Asker, asker as never))
      const rejected = yield* exit("1. write a.txt")
      assert.include(rejected.content, "permission denied: not yet")
      assert.isTrue((yield* r.call(cwd, "Write", { path: "a.txt", content: "x" })).isError)
      const approved = yield* exit("1. write a.txt\n2. done")
      assert.include(approved.content, "The user approved the plan")
      assert.deepStrictEqual(asked, ["approve this plan?\n1. write a.txt", "approve this plan?\n1. write a.txt\n2. done"])
      assert.isUndefined((yield* r.call(cwd, "Write", { path: "a.txt", content: "x" })).isError)
      // Another run is not in plan mode.
      const other = yield* run()
      assert.isUndefined((yield* other.call(cwd, "Write", { path: "c.txt", content: "y" })).isError)
    }))
})
