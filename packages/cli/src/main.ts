#!/usr/bin/env node
// A tiny entry: turn on V8's on-disk compile cache before the bundle loads, so repeated
// starts skip most of the parse/compile work; then load only what the command needs
// (`--version` and `--help` never load Effect, each command loads its own modules).
import { enableCompileCache } from "node:module"
import { fileURLToPath } from "node:url"

enableCompileCache?.()
const argv = process.argv.slice(2)
const first = argv[0]
if (argv.length === 0 || first === "--help" || first === "-h" || first === "help" ||
  (argv.length === 1 && (first === "--version" || first === "-v" || first === "version"))) {
  const { answerAndExit } = await import("./Usage.ts")
  answerAndExit(argv)
}
// The built CLI hands the start to a resident dsh when the user opted in (DSH_RESIDENT=1, or
// `[cli] resident = true`) and one confined as this process is has a spare warm.
if (import.meta.url.endsWith(".js") && process.env.DSH_RESIDENT !== "0") {
  const { Launcher: { runInResident } } = await import("@dsh/cli-resident")
  await runInResident({
    entry: fileURLToPath(import.meta.url),
    server: fileURLToPath(new URL("./warm-server.js", import.meta.url))
  })
}
await import("./Cli.ts")
