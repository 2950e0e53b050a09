import { LocalProcessLauncher } from "@dsh/subprocess"
import { Toolbox } from "@dsh/tools"
import { BuiltinTools } from "@dsh/tools-builtin"
import { Effect } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const program = Effect.gen(function*() {
  const toolbox = Toolbox.make({ tools: yield* BuiltinTools.make })
  console.log(toolbox.names.join(", ")) // Read, Write, Edit, Glob, Grep, Bash, BashBackground, BashOutput, BashStop, TodoWrite, EnterPlanMode, ExitPlanMode, Skill

  // File tools are confined to the agent's working directory (PathPolicy).
  const cwd = mkdtempSync(join(tmpdir(), "dsh-tools-"))
  const run = (name: string, args: object) =>
    toolbox.execute({ id: name, name, arguments: JSON.stringify(args) }, { cwd, agent: "main" }).pipe(Effect.map((result) => result.content))

  console.log(yield* run("Write", { path: "notes/todo.md", content: "- write docs\n- ship\n" })) // Created notes/todo.md: wrote 20 bytes.
  yield* run("Edit", { path: "notes/todo.md", old_string: "- ship", new_string: "- ship it" })
  console.log(yield* run("Read", { path: "notes/todo.md" })) //      1\t- write docs\n     2\t- ship it
  console.log(yield* run("Grep", { pattern: "ship", outputMode: "content" })) // notes/todo.md:2:- ship it
  console.log(yield* run("Bash", { command: "ls notes" })) // todo.md\n[exit code 0]
  console.log(yield* run("Read", { path: "/etc/passwd" })) // Error: /etc/passwd is outside the allowed directories (…)
})

Effect.runPromise(program.pipe(Effect.provide(LocalProcessLauncher.layer())))
