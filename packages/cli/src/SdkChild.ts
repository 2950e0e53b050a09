import { dshSdkAgentType, forwardedEnv, makeDshSdkProvider } from "@dsh/subagent-dsh-sdk"
import { ProcessLauncher } from "@dsh/subprocess"
import { Effect, Option } from "effect"
import { existsSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

/**
 * How to start this CLI again (for `dsh sdk` children): the running Node and the CLI's entry
 * next to this module, the bundle's `dist/main.js`, or `src/main.ts` when running from source.
 */
export const selfCommand = (): { readonly command: string; readonly args: ReadonlyArray<string> } => {
  const here = dirname(fileURLToPath(import.meta.url))
  const bundled = join(here, "main.js")
  return existsSync(bundled)
    ? { command: process.execPath, args: [bundled] }
    : { command: process.execPath, args: ["--conditions=@dsh/source", join(here, "main.ts")] }
}

/**
 * The `dsh-sdk` backend as the reference harness wires it: children are this CLI's own
 * `dsh sdk`, on the same launcher, with the model credentials passed on explicitly (the
 * child environment is scrubbed) and the depth left below them written to their config.
 */
export const sdkChildBackend = (options: { readonly env: NodeJS.ProcessEnv; readonly maxDepth: () => number }) =>
  Effect.gen(function*() {
    const launcher = Option.getOrUndefined(yield* Effect.serviceOption(ProcessLauncher))
    const self = selfCommand()
    const provider = makeDshSdkProvider({
      command: self.command,
      args: [...self.args, "sdk"],
      env: forwardedEnv(options.env),
      launcher,
      childLimits: (context) => ({ maxDepth: options.maxDepth() - (context.parent.depth + 1) })
    })
    return { provider, type: dshSdkAgentType(provider.name) }
  })
