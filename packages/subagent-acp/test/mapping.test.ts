import { assert, describe, it } from "@effect/vitest"
import { Permissions, PermissionSubject } from "@dsh/tools"
import { Effect } from "effect"
import { subjectOfToolCall } from "../src/internal/PermissionRequest.ts"

const cwd = "/work/app"
const subject = (toolCall: Record<string, unknown>) =>
  subjectOfToolCall({ toolCallId: "c1", ...toolCall } as Parameters<typeof subjectOfToolCall>[0], cwd)

describe("an ACP tool call as permission rules see it (kind + rawInput, never the title)", () => {
  it.effect("each kind maps to its subject", () =>
    Effect.gen(function*() {
      const text = (call: Record<string, unknown>) => Effect.map(subject(call), PermissionSubject.subjectText)
      // Codex sends argv; a shell's -c script is the command.
      assert.strictEqual(yield* text({ kind: "execute", title: "echo", rawInput: { command: ["bash", "-lc", "git status --short"] } }), "Bash(git status --short)")
      assert.strictEqual(yield* text({ kind: "execute", title: "Terminal", rawInput: { command: "npm test" } }), "Bash(npm test)")
      assert.strictEqual(yield* text({ kind: "execute", rawInput: { command: ["ls", "-la"] } }), "Bash(ls -la)")
      assert.strictEqual(yield* text({ kind: "execute", title: "git push" }), "Bash")
      assert.strictEqual(yield* text({ kind: "edit", rawInput: { file_path: "/work/app/src/a.ts" } }), "Edit(src/a.ts)")
      assert.strictEqual(yield* text({ kind: "delete", locations: [{ path: "/etc/hosts" }] }), "Edit(/etc/hosts)")
      assert.strictEqual(yield* text({ kind: "read", rawInput: { path: "README.md" } }), "Read(README.md)")
      assert.strictEqual(yield* text({ kind: "search", rawInput: { pattern: "x" } }), "Grep")
      assert.strictEqual(yield* text({ kind: "fetch", rawInput: { url: "https://example.com/a" } }), "WebFetch(https://example.com/a)")
      assert.strictEqual(yield* text({ kind: "think" }), "Think")
      assert.strictEqual(yield* text({ title: "anything" }), "Other")
    }))

  it.effect("rules decide the mapped subject: Write rules cover edits, kinds drive the modes", () =>
    Effect.gen(function*() {
      const permissions = yield* Permissions.make({ mode: "acceptEdits", allow: ["Bash(git status*)"], deny: ["Write(.env)"] })
      const decide = (call: Record<string, unknown>) => Effect.flatMap(subject(call), (s) => permissions.decide({ agent: "codex-1", cwd, subject: s }))
      assert.deepInclude(yield* decide({ kind: "execute", rawInput: { command: ["bash", "-lc", "git status"] } }), { allowed: true, rule: "allow: Bash(git status*)" })
      assert.deepInclude(yield* decide({ kind: "edit", rawInput: { path: ".env" } }), { allowed: false, rule: "deny: Write(.env)" })
      assert.deepInclude(yield* decide({ kind: "edit", rawInput: { path: "src/a.ts" } }), { allowed: true, rule: "mode: acceptEdits" })
      assert.deepInclude(yield* decide({ kind: "read", rawInput: { path: "a" } }), { allowed: true, via: "mode" })
      assert.deepInclude(yield* decide({ kind: "fetch", rawInput: { url: "https://x" } }), { allowed: false, via: "asked" })
    }))
})
