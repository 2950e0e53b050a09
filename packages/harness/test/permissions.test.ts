import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { PassThrough } from "node:stream"
import { HarnessConfig, SessionPermissions, TerminalAsker } from "../src/index.ts"

const bash = (command: string) => ({ tool: "Bash", kind: "execute" as const, specifier: command, match: "text" as const, forms: [command] })

describe("[permissions] and [sandbox] in config.toml", () => {
  it.effect("decode with defaults, and a bad key or rule is an error naming it", () =>
    Effect.gen(function*() {
      const config = yield* HarnessConfig.decodeHarnessConfig({ permissions: { mode: "plan", deny: ["Bash(rm *)"] }, sandbox: { network: true, writable: ["/data"] } }, "config.toml")
      assert.deepStrictEqual(config.permissions, { mode: "plan", deny: ["Bash(rm *)"] })
      assert.deepStrictEqual(config.sandbox, { mode: "auto", network: true, writable: ["/data"] })
      assert.deepStrictEqual((yield* HarnessConfig.decodeHarnessConfig({}, "c")).sandbox, { mode: "auto", network: false, writable: [] })
      const rule = yield* Effect.flip(HarnessConfig.decodeHarnessConfig({ permissions: { allow: ["Read", "Bash("] } }, "/h/config.toml"))
      assert.strictEqual(rule.key, "[permissions] allow")
      assert.include(rule.message, "/h/config.toml: [permissions] allow has a malformed permission rule \"Bash(\"")
      const mode = yield* Effect.flip(HarnessConfig.decodeHarnessConfig({ permissions: { mode: "yes" } }, "c"))
      assert.include(mode.message, "[permissions] mode = \"yes\" is not allowed: it must be one of default, acceptEdits, plan, bypass")
      const sandbox = yield* Effect.flip(HarnessConfig.decodeHarnessConfig({ sandbox: { mode: "always" } }, "c"))
      assert.strictEqual(sandbox.key, "[sandbox] mode")
      // Claude Code's spelling of bypass is accepted.
      assert.strictEqual((yield* HarnessConfig.decodeHarnessConfig({ permissions: { mode: "bypassPermissions" } }, "c")).permissions.mode, "bypass")
    }))
})

describe("a session's permissions", () => {
  it.effect("the harness's rules, narrowed by a parent's from the session's state; none at all is undefined", () =>
    Effect.gen(function*() {
      const request = (extra: Record<string, unknown>) => ({ cwd: "/w", extra })
      assert.isUndefined(yield* SessionPermissions.sessionPermissions(undefined, request({})))
      const own = yield* SessionPermissions.sessionPermissions({ mode: "bypass" }, request({ [SessionPermissions.PARENT_PERMISSIONS_KEY]: [{ mode: "bypass", deny: ["Bash(git push*)"] }] }))
      assert.deepInclude(yield* own!.decide({ agent: "main", cwd: "/w", subject: bash("git push") }), { allowed: false, rule: "deny: Bash(git push*)" })
      assert.isTrue((yield* own!.decide({ agent: "main", cwd: "/w", subject: bash("ls") })).allowed)
      // A parent in the default mode makes its child ask too, whatever the child's own mode.
      const narrowed = yield* SessionPermissions.sessionPermissions({ mode: "bypass" }, request({ [SessionPermissions.PARENT_PERMISSIONS_KEY]: [{}] }))
      assert.deepInclude(yield* narrowed!.decide({ agent: "main", cwd: "/w", subject: bash("ls") }), { allowed: false, via: "asked", rule: "mode: default" })
      // Only a parent's rules (a host without its own).
      const parentOnly = yield* SessionPermissions.sessionPermissions(undefined, request({ [SessionPermissions.PARENT_PERMISSIONS_KEY]: [{ mode: "plan" }] }))
      assert.deepInclude(yield* parentOnly!.decide({ agent: "main", cwd: "/w", subject: bash("ls") }), { allowed: false, rule: "mode: plan" })
      const bad = yield* Effect.flip(SessionPermissions.sessionPermissions(undefined, request({ [SessionPermissions.PARENT_PERMISSIONS_KEY]: [{ deny: ["Bash("] }] })))
      assert.strictEqual(bad.reason, "InvalidInput")
      assert.include(bad.message, "\"Bash(\"")
      assert.strictEqual((yield* Effect.flip(SessionPermissions.sessionPermissions(undefined, request({ [SessionPermissions.PARENT_PERMISSIONS_KEY]: "all" })))).reason, "InvalidInput")
    }))

  it.effect("a parent's mode as a user writes it is read (Claude Code's bypassPermissions), an unknown one refused by name", () =>
    Effect.gen(function*() {
      const request = (extra: Record<string, unknown>) => ({ cwd: "/w", extra })
      const parent = yield* SessionPermissions.sessionPermissions(undefined, request({ [SessionPermissions.PARENT_PERMISSIONS_KEY]: [{ mode: "bypassPermissions", deny: ["Bash(rm*)"] }] }))
      // The settings a child passes on (to a runner, to its own children) hold the mode's own name.
      assert.deepStrictEqual(parent!.settings.at(-1), { mode: "bypass", deny: ["Bash(rm*)"] })
      assert.isTrue((yield* parent!.decide({ agent: "main", cwd: "/w", subject: bash("ls") })).allowed)
      const unknown = yield* Effect.flip(SessionPermissions.sessionPermissions(undefined, request({ [SessionPermissions.PARENT_PERMISSIONS_KEY]: [{ mode: "yolo" }] })))
      assert.strictEqual(unknown.reason, "InvalidInput")
      assert.strictEqual(unknown.message, "parentPermissions: unknown permission mode \"yolo\" (default, acceptEdits, plan, bypass)")
    }))
})

describe("terminalAsker", () => {
  it.live("prints who wants what, reads a line, asks again on nonsense, and an ended input denies", () =>
    Effect.gen(function*() {
      const input = new PassThrough()
      const output = new PassThrough()
      let printed = ""
      output.on("data", (c: Buffer) => {
        printed += c.toString()
        if (printed.endsWith("> ") && !printed.includes("answer y")) input.write("what\r\n")
        else if (printed.includes("answer y") && !printed.includes("allowed")) input.write("A\n")
      })
      const asker = TerminalAsker.terminalAsker({ input, output })
      const question = { agent: "explore-2", subject: "Bash(git push)", tool: "Bash", kind: "execute" as const, specifier: "git push", summary: "$ git push", reason: "ask: Bash", cwd: "/w", input: {} }
      const answer = yield* asker.ask(question)
      assert.deepStrictEqual(answer, { allow: true, remember: "session", by: "user" })
      assert.include(printed, "? explore-2 wants to run: git push  (ask: Bash)")
      assert.include(printed, "allowed for this session")
      const ended = new PassThrough()
      ended.end()
      const denied = yield* TerminalAsker.terminalAsker({ input: ended, output: new PassThrough() }).ask(question)
      assert.deepInclude(denied, { allow: false, by: "user" })
    }))
})
