import { describe, expect, it } from "vitest"
import { readCommandOutcome } from "../src/index.ts"

describe("command hook outcomes (Claude Code's exit codes and output JSON)", () => {
  it("0 continues; its JSON may block or decide the permission", () => {
    expect(readCommandOutcome(0, "", "")).toEqual({ exitCode: 0 })
    expect(readCommandOutcome(0, "not json", "")).toEqual({ exitCode: 0 })
    expect(readCommandOutcome(0, `{"decision":"block","reason":"lint first"}`, "")).toEqual({ exitCode: 0, decision: "block", reason: "lint first" })
    expect(readCommandOutcome(0, `{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"sure?"}}`, "")).toEqual({
      exitCode: 0,
      permissionDecision: "ask",
      permissionDecisionReason: "sure?"
    })
    expect(readCommandOutcome(0, `{"hookSpecificOutput":{"permissionDecision":"maybe"}}`, "")).toEqual({ exitCode: 0 })
  })

  it("2 blocks with stderr; anything else is a warning", () => {
    expect(readCommandOutcome(2, "", "no push\n")).toEqual({ decision: "block", reason: "no push", exitCode: 2 })
    expect(readCommandOutcome(1, "", "oops\nmore")).toEqual({ warning: "exited with 1: oops", exitCode: 1 })
    expect(readCommandOutcome(null, "", "")).toEqual({ warning: "exited with a signal" })
  })
})
