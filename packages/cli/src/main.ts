#!/usr/bin/env node
// A tiny entry: turn on V8's on-disk compile cache before the bundle loads, so repeated
// starts skip most of the parse/compile work; then load only what the command needs
// (`--version` and `--help` never load Effect, each command loads its own modules).
import { enableCompileCache } from "node:module"

enableCompileCache?.()
const argv = process.argv.slice(2)
const first = argv[0]
if (argv.length === 0 || first === "--help" || first === "-h" || first === "help" ||
  (argv.length === 1 && (first === "--version" || first === "-v" || first === "version"))) {
  const { answerAndExit } = await import("./Usage.ts")
  answerAndExit(argv)
}
// The built CLI hands the start to a resident dsh when one is warm (DSH_RESIDENT=0: never).
if (import.meta.url.endsWith(".js") && process.env.DSH_RESIDENT !== "0") {
  const { runInResident } = await import("./warm/Launcher.ts")
  await runInResident(import.meta.url)
}
await import("./Cli.ts")
