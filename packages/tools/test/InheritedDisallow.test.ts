import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { z } from "zod"
import { InheritedDisallow, PermissionPolicy, Permissions, PermissionSubject, Tool, Toolbox } from "../src/index.ts"

const bash = Tool.defineTool({ name: "Bash", description: "Runs.", parameters: z.object({}), execute: () => Effect.succeed("ran") })
const read = Tool.defineTool({ name: "Read", description: "Reads.", parameters: z.object({}), execute: () => Effect.succeed("read") })
const ctx = { cwd: "/tmp", agent: "child" }

describe("disallowedTools bind a subtree", () => {
  it.effect("an inherited name is hidden from the model and denied, saying why", () =>
    Effect.gen(function*() {
      const box = Toolbox.make({ tools: [bash, read], inheritedDisallowed: ["Bash"] })
      assert.deepStrictEqual(box.names, ["Read"])
      const r = yield* box.execute({ id: "1", name: "Bash", arguments: "{}" }, ctx)
      assert.isTrue(r.isError)
      assert.include(r.content, "Bash is denied: an agent above this one lists Bash in disallowedTools")
    }))

  it.effect("binding adds to what is inherited, and narrows configured rules with deny rules that say where they come from", () =>
    Effect.gen(function*() {
      const base = yield* Permissions.make({ mode: "bypass" })
      const seen = yield* Effect.gen(function*() {
        const permissions = yield* Permissions.Permissions
        const decision = yield* permissions.decide({ agent: "c", cwd: "/tmp", subject: PermissionSubject.commandSubject("Bash", "touch x") })
        return { inherited: yield* InheritedDisallow.InheritedDisallowedTools, settings: permissions.settings, decision }
      }).pipe(InheritedDisallow.bindDisallowedTools(["Edit", "Bash"]), InheritedDisallow.bindDisallowedTools(["Bash"]), Effect.provideService(Permissions.Permissions, base))
      assert.deepStrictEqual(seen.inherited, ["Bash", "Edit"])
      // One layer per agent that adds names: Bash once, then Edit.
      assert.deepStrictEqual(seen.settings.slice(1).map((s) => s.deny), [["Bash"], ["Edit"]])
      assert.strictEqual(seen.decision.allowed, false)
      assert.strictEqual(seen.decision.rule, "disallowedTools: Bash")
      assert.include(seen.decision.reason!, "lists Bash in disallowedTools")
      // Other calls stay as the rules above decide them.
      const other = yield* Effect.flatMap(Effect.gen(function*() { return yield* Permissions.Permissions }), (p) => p.decide({ agent: "c", cwd: "/tmp", subject: PermissionSubject.toolSubject("Grep", "read") })).pipe(
        InheritedDisallow.bindDisallowedTools(["Bash"]),
        Effect.provideService(Permissions.Permissions, base)
      )
      assert.isTrue(other.allowed)
    }))

  it.effect("without configured rules the Permissions are left alone", () =>
    Effect.gen(function*() {
      const configured = yield* Effect.map(Effect.gen(function*() { return yield* Permissions.Permissions }), (p) => p.configured).pipe(InheritedDisallow.bindDisallowedTools(["Bash"]))
      assert.isFalse(configured)
    }))

  it("a host's own settings keep only what narrows", () => {
    assert.deepStrictEqual(PermissionPolicy.narrowingOnly({ mode: "default", allow: ["Bash"], ask: ["Bash(git push*)"], deny: ["Write(.env)"] }), {
      mode: "bypass",
      deny: ["Write(.env)", "Bash(git push*)"]
    })
    assert.strictEqual(PermissionPolicy.narrowingOnly({ mode: "plan" }).mode, "plan")
  })

  it("a child process reads what its parent's agents disallow from the settings it was given", () => {
    assert.deepStrictEqual(
      InheritedDisallow.disallowedBySettings([{ mode: "default", deny: ["Bash(rm *)"] }, { mode: "bypass", deny: ["Bash"], origin: "disallowedTools" }, { deny: ["Write"], origin: "disallowedTools" }]),
      ["Bash", "Write"]
    )
  })

  it.effect("a child process gets the tree's settings, or without rules only the inherited names as a deny layer", () =>
    Effect.gen(function*() {
      assert.isUndefined(InheritedDisallow.settingsForChildProcess(Permissions.unrestrictedPermissions, []))
      assert.deepStrictEqual(InheritedDisallow.settingsForChildProcess(Permissions.unrestrictedPermissions, ["Bash"]), [{ mode: "bypass", deny: ["Bash"], origin: "disallowedTools" }])
      const configured = yield* Permissions.make({ allow: ["Read"] })
      assert.deepStrictEqual(InheritedDisallow.settingsForChildProcess(configured, ["Bash"]), configured.settings)
    }))
})
