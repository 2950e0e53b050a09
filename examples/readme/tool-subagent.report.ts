import type { Vocabulary } from "@dsh/subagent"
import { ReportTool } from "@dsh/tool-subagent"
import { Toolbox } from "@dsh/tools"
import { Effect } from "effect"

// The in-process driver hands the harness a `report` callback for each continuable child;
// here it just prints what the child reported.
const tool = ReportTool.make({
  report: (result: Vocabulary.ReportedResult) => Effect.sync(() => console.log(`reported: ${result.text} ${JSON.stringify(result.json)}`)),
  // The parent asked for a structured result: `json` must match this JSON Schema.
  resultSchema: { type: "object", properties: { files: { type: "array", items: { type: "string" } } }, required: ["files"] }
})
const toolbox = Toolbox.make({ tools: [tool] })
const report = (args: object) =>
  toolbox.execute({ id: "1", name: "report", arguments: JSON.stringify(args) }, { cwd: process.cwd(), agent: "explore-1" }).pipe(Effect.map((r) => r.content))

const program = Effect.gen(function*() {
  // Mistakes are results the child can fix, not failures.
  console.log(yield* report({ result: "Found them." })) // Error: this parent asked for a structured result: pass `json`
  console.log(yield* report({ result: "Found them.", json: { files: "a.ts" } })) // Error: json does not match the requested schema: files: Invalid input: expected array, received string
  console.log(yield* report({ result: "Found them.", json: { files: ["a.ts", "b.ts"] } })) // reported: Found them. {"files":["a.ts","b.ts"]}, then: Reported to the parent. …
})

Effect.runPromise(program)
