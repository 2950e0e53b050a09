#!/usr/bin/env node
// A spare of the CLI's resident (`dist/warm-spare.js`): every module a command loads on demand,
// loaded ahead; a start then runs `Cli.ts` in this process.
import { Lost, Spare } from "@dsh/cli-resident"
import { fileURLToPath } from "node:url"

await Spare.runSpare({
  entry: fileURLToPath(new URL("./main.js", import.meta.url)),
  preload: () =>
    Promise.all([
      import("../Dispatch.ts"),
      import("../CliError.ts"),
      import("../Runtime.ts"),
      import("../Host.ts"),
      import("../Store.ts"),
      import("../commands/run.ts"),
      import("../commands/acp.ts"),
      import("../commands/sdk.ts"),
      import("../commands/sessions.ts"),
      import("../commands/subagents.ts"),
      import("../commands/agents.ts"),
      import("@dsh/llm-scripted"),
      import("@dsh/llm-openai"),
      import("@dsh/llm-anthropic")
    ]),
  main: () => import("../Cli.ts"),
  onResidentLost: Lost.residentLost
})
