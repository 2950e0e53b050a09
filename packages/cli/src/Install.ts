import type { DshHarness } from "@dsh/kit/dsh"
import { Place } from "@dsh/cli-resident"
import { existsSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

/**
 * How to start this CLI again (for `sdk:dsh` and `acp:dsh` children): the running Node and the
 * CLI's entry next to this module, the bundle's `dist/main.js`, or `src/main.ts` from source.
 */
const selfCommand = (): DshHarness.DshInstall["self"] => {
  const here = dirname(fileURLToPath(import.meta.url))
  const bundled = join(here, "main.js")
  return existsSync(bundled)
    ? { command: process.execPath, args: [bundled] }
    : { command: process.execPath, args: ["--conditions=@dsh/source", join(here, "main.ts")] }
}

/**
 * The CLI as dsh's harness is installed: itself for out-of-process children; the built-in agent
 * files shipped inside its bundle (`dist/agents`, copied from `@dsh/agent-files` at build time;
 * from source there is none and that package's own directory is used); the resident dsh's
 * sockets hidden from confined commands (through them a command could have others run
 * unconfined, even from a working directory of /tmp).
 */
export const cliInstall = (): DshHarness.DshInstall => {
  const agents = fileURLToPath(new URL("./agents", import.meta.url))
  const uid = process.getuid?.()
  return {
    self: selfCommand(),
    builtinAgentsDir: existsSync(agents) ? agents : undefined,
    hidden: uid === undefined ? [] : [Place.residentDir(uid)],
    onWarning: (line) => void process.stderr.write(`dsh: warning: ${line}\n`)
  }
}
