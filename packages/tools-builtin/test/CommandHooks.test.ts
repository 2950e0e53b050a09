import { describe, expect, it } from "vitest"
import { CommandHooks } from "../src/index.ts"

describe("command hook outcomes (Claude Code's exit codes and output JSON)", () => {
  it("0 continues; its JSON may block or decide the permission", () => {
    expect(CommandHooks.readCommandOutcome(0, "", "")).toEqual({ exitCode: 0 })
    expect(CommandHooks.readCommandOutcome(0, "not json", "")).toEqual({ exitCode: 0 })
    expect(CommandHooks.readCommandOutcome(0, `{"decision":"block","reason":"lint first"}`, "")).toEqual({ exitCode: 0, decision: "block", reason: "lint first" })
    expect(CommandHooks.readCommandOutcome(0, `{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"sure?"}}`, "")).toEqual({
      exitCode: 0,
      permissionDecision: "ask",
      permissionDecisionReason: "sure?"
    })
    expect(CommandHooks.readCommandOutcome(0, `{"hookSpecificOutput":{"permissionDecision":"maybe"}}`, "")).toEqual({ exitCode: 0 })
  })

  it("2 blocks with stderr; anything else is a warning", () => {
    expect(CommandHooks.readCommandOutcome(2, "", "no push\n")).toEqual({ decision: "block", reason: "no push", exitCode: 2 })
    expect(CommandHooks.readCommandOutcome(1, "", "oops\nmore")).toEqual({ warning: "exited with 1: oops", exitCode: 1 })
    expect(CommandHooks.readCommandOutcome(null, "", "")).toEqual({ warning: "exited with a signal" })
  })
})
