import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Ref } from "effect"
import { mkdirSync, mkdtempSync, symlinkSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Asker, type PermissionPolicy, PermissionRule, Permissions, PermissionSubject } from "../src/index.ts"

const cwd = "/work/project"
const bash = (command: string) => PermissionSubject.commandSubject("Bash", command)
const decide = (settings: ReadonlyArray<PermissionPolicy.PermissionSettings>, subject: PermissionSubject.PermissionSubject) =>
  Effect.flatMap(Permissions.make(...settings), (p) => p.decide({ agent: "main", cwd, subject }))

describe("permission rules", () => {
  it.effect("malformed rules and modes fail naming the rule", () =>
    Effect.gen(function*() {
      for (const bad of ["", "Bash(", "Bash()", "Bash(git) x", "Ba sh", "(x)", "Bash)"]) {
        const error = yield* Effect.flip(PermissionRule.parsePermissionRule(bad))
        assert.include(error.message, `malformed permission rule ${JSON.stringify(bad.trim())}`)
      }
      const mode = yield* Effect.flip(Permissions.make({ mode: "yolo" as never }))
      assert.include(mode.message, "unknown permission mode \"yolo\"")
      const rule = yield* Effect.flip(Permissions.make({ deny: ["Write(.env"] }))
      assert.strictEqual(rule.rule, "Write(.env")
    }))

  it.effect("deny beats ask beats allow beats the mode", () =>
    Effect.gen(function*() {
      const settings = { allow: ["Bash"], ask: ["Bash(git push*)"], deny: ["Bash(rm -rf *)"] }
      const denied = yield* decide([settings], bash("rm -rf /"))
      assert.deepInclude(denied, { allowed: false, via: "rule", rule: "deny: Bash(rm -rf *)" })
      assert.include(denied.reason!, "Bash(rm -rf /) is denied by the rule \"Bash(rm -rf *)\"")
      assert.deepInclude(yield* decide([settings], bash("git push origin")), { allowed: false, via: "asked", rule: "ask: Bash(git push*)", by: "none" })
      assert.deepInclude(yield* decide([settings], bash("ls")), { allowed: true, via: "rule", rule: "allow: Bash" })
      assert.deepInclude(yield* decide([{}], bash("ls")), { allowed: false, via: "asked", rule: "mode: default" })
    }))

  it.effect("a compound command is allowed only when every part is, and denied when any part is", () =>
    Effect.gen(function*() {
      const settings = { allow: ["Bash(git status*)", "Bash(ls:*)"], deny: ["Bash(rm *)"] }
      assert.isTrue((yield* decide([settings], bash("git status --short"))).allowed)
      assert.isTrue((yield* decide([settings], bash("ls -la && git status"))).allowed)
      assert.isFalse((yield* decide([settings], bash("lsof"))).allowed)
      assert.deepInclude(yield* decide([settings], bash("git status; curl x | sh")), { via: "asked", rule: "mode: default" })
      assert.deepInclude(yield* decide([settings], bash("echo \"$(rm -rf ~)\"")), { allowed: false, rule: "deny: Bash(rm *)" })
      assert.deepInclude(yield* decide([settings], bash("git status `rm x`")), { allowed: false, rule: "deny: Bash(rm *)" })
      // Separators inside quotes do not split.
      assert.isTrue((yield* decide([settings], bash("git status 'a;rm b'"))).allowed)
    }))

  it.effect("modes: default asks, acceptEdits allows edits inside the cwd, plan denies changes, bypass keeps deny", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(join(tmpdir(), "dsh-perm-"))
      mkdirSync(join(dir, "src"))
      symlinkSync("/etc", join(dir, "etc-link"))
      const inside = yield* PermissionSubject.pathSubject("Write", "src/a.ts", dir, "edit")
      const outside = yield* PermissionSubject.pathSubject("Write", "../elsewhere.txt", dir, "edit")
      const viaLink = yield* PermissionSubject.pathSubject("Write", "etc-link/passwd", dir, "edit")
      assert.strictEqual(inside.specifier, "src/a.ts")
      assert.isTrue(inside.insideCwd)
      assert.isFalse(outside.insideCwd)
      assert.isFalse(viaLink.insideCwd)
      const read = PermissionSubject.toolSubject("Grep", "read")
      const at = (mode: PermissionPolicy.PermissionSettings["mode"], subject: PermissionSubject.PermissionSubject) =>
        Effect.flatMap(Permissions.make({ mode, deny: ["Write(.env)"] }), (p) => p.decide({ agent: "main", cwd: dir, subject }))
      assert.deepInclude(yield* at("default", inside), { allowed: false, via: "asked" })
      assert.deepInclude(yield* at("default", read), { allowed: true, via: "mode" })
      assert.deepInclude(yield* at("acceptEdits", inside), { allowed: true, via: "mode", rule: "mode: acceptEdits" })
      assert.deepInclude(yield* at("acceptEdits", outside), { allowed: false, via: "asked" })
      assert.deepInclude(yield* at("acceptEdits", viaLink), { allowed: false, via: "asked" })
      assert.deepInclude(yield* at("acceptEdits", bash("ls")), { allowed: false, via: "asked" })
      const plan = yield* at("plan", inside)
      assert.deepInclude(plan, { allowed: false, via: "mode", rule: "mode: plan" })
      assert.include(plan.reason!, "the permission mode is plan")
      assert.deepInclude(yield* at("plan", read), { allowed: true })
      assert.deepInclude(yield* at("bypass", bash("rm -rf x")), { allowed: true, rule: "mode: bypass" })
      // A deny rule on a path matches at any depth (gitignore-like) and through `./`.
      assert.deepInclude(yield* at("bypass", yield* PermissionSubject.pathSubject("Write", "./config/.env", dir, "edit")), { allowed: false, rule: "deny: Write(.env)" })
    }))

  it.effect("a narrower policy below can only narrow: the strictest verdict wins", () =>
    Effect.gen(function*() {
      const parent = yield* Permissions.make({ mode: "bypass", deny: ["Bash(git push*)"] })
      const child = yield* parent.narrow({ mode: "plan" })
      const decideIn = (p: typeof parent, subject: PermissionSubject.PermissionSubject) => p.decide({ agent: "x", cwd, subject })
      assert.isTrue((yield* decideIn(parent, bash("make"))).allowed)
      assert.deepInclude(yield* decideIn(child, bash("make")), { allowed: false, rule: "mode: plan" })
      // A wider child (bypass below default) widens nothing.
      const wide = yield* (yield* Permissions.make({ mode: "default" })).narrow({ mode: "bypass", allow: ["Bash"] })
      assert.deepInclude(yield* decideIn(wide, bash("make")), { allowed: false, via: "asked" })
      const stillDenied = yield* (yield* parent.narrow({ allow: ["Bash"] })).decide({ agent: "x", cwd, subject: bash("git push") })
      assert.deepInclude(stillDenied, { allowed: false, rule: "deny: Bash(git push*)" })
      assert.deepStrictEqual(child.settings, [{ mode: "bypass", deny: ["Bash(git push*)"] }, { mode: "plan" }])
    }))

  it.live("questions go one at a time, name the agent, and 'always' answers later questions of the session", () =>
    Effect.gen(function*() {
      const permissions = yield* Permissions.make({})
      const asked = yield* Ref.make<Array<string>>([])
      const open = yield* Ref.make(0)
      const overlap = yield* Ref.make(false)
      const asker = {
        ask: (q: Asker.PermissionQuestion) =>
          Effect.gen(function*() {
            if ((yield* Ref.updateAndGet(open, (n) => n + 1)) > 1) yield* Ref.set(overlap, true)
            yield* Ref.update(asked, (xs) => [...xs, Asker.questionText(q)])
            yield* Effect.yieldNow
            yield* Ref.update(open, (n) => n - 1)
            return { allow: true, remember: "session" as const, by: "user" }
          })
      }
      const fibers = yield* Effect.forEach(["explore-1", "explore-2", "explore-3"], (agent) =>
        Effect.forkChild(permissions.decide({ agent, cwd, subject: bash("git push") }).pipe(Effect.provideService(Asker.Asker, asker))))
      const decisions = yield* Fiber.joinAll(fibers)
      assert.isFalse(yield* Ref.get(overlap))
      // The first answer ("always") settled the other two without asking.
      assert.strictEqual((yield* Ref.get(asked)).length, 1)
      assert.match((yield* Ref.get(asked))[0]!, /^explore-\d wants to run: git push$/)
      assert.deepStrictEqual(decisions.map((d) => d.allowed), [true, true, true])
      assert.strictEqual(decisions.filter((d) => d.via === "asked").length, 1)
      assert.deepInclude(decisions.find((d) => d.via === "rule")!, { rule: "session: Bash(git push)" })
    }))
})
