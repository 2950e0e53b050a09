import type { AgentHost } from "@dsh/agent"
import { Hooks } from "@dsh/tools"
import { Effect } from "effect"
import type { HarnessOptions } from "../HarnessOptions.ts"

/** A session's hooks from the harness's options (a list, or a function of the session). */
export const sessionHooks = (
  options: Pick<HarnessOptions<unknown, unknown>, "hooks" | "agentHooks">,
  session: { readonly id: string; readonly cwd: string; readonly agent: string; readonly extra: Readonly<Record<string, unknown>>; readonly transcriptPath: string }
): Effect.Effect<Hooks.HooksShape, AgentHost.HostError> =>
  Effect.gen(function*() {
    const registrations = typeof options.hooks === "function"
      ? yield* options.hooks({ cwd: session.cwd, agent: session.agent, extra: session.extra })
      : options.hooks ?? []
    return registrations.length === 0 && options.agentHooks === undefined
      ? Hooks.noHooks
      : Hooks.make(registrations, { sessionId: session.id, transcriptPath: session.transcriptPath, agentHooks: options.agentHooks })
  })
