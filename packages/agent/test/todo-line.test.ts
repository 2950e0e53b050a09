import { describe, expect, it } from "vitest"
import { TranscriptView } from "../src/index.ts"

describe("a todo event as a reader sees it", () => {
  it("says how many items are done and which one is in progress", () => {
    expect(TranscriptView.eventLine({
      type: "todo",
      todos: [
        { content: "Read", status: "completed" },
        { content: "Run the tests", status: "in_progress", activeForm: "Running the tests" },
        { content: "Fix", status: "pending" }
      ]
    })).toBe("☑ todo 1/3 done; now: Running the tests")
    expect(TranscriptView.eventLine({ type: "todo", todos: [] })).toBe("☑ todo 0/0 done")
  })
})
