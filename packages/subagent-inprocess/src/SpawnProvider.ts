import type { Vocabulary } from "@dsh/subagent"
import { runInProcess } from "./InProcessDriver.ts"

/**
 * The `spawn` backend: a fresh in-process child whose only input is the prompt it was
 * given. Its transcript is its whole memory, so `continue` works warm or cold alike.
 */
export const SpawnProvider: Vocabulary.SubagentProvider = {
  specificationVersion: "v1",
  name: "spawn",
  description: "a fresh in-process child that sees only the prompt it is given",
  start: (context) => runInProcess({ context, prompt: context.request.prompt }),
  continue: (context) => runInProcess({ context, prompt: context.message }),
  runsSubagentStop: true
}
