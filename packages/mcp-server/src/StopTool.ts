import type { AgentHost } from "@dsh/agent"
import { Tool } from "@dsh/tools"
import { Effect } from "effect"
import * as z from "zod"

const StopParams = z.object({
  handle: z.string().min(1).describe("The subagent's handle (e.g. explore-1), or all for every running subagent")
})

/**
 * `stop {handle}`: stops a running subagent and its descendants (status `cancelled`). The
 * in-session tools have no `stop` of their own (a model ends children by ending its turn); an
 * MCP client holds children across calls, so it gets one, over the host's `stopChild`.
 */
export const make = (stop: (handle: string) => Effect.Effect<ReadonlyArray<string>, AgentHost.HostError>) =>
  Tool.defineTool({
    name: "stop",
    description: "Stop a running subagent and everything it started, by its handle (or all). Its status becomes cancelled; " +
      "it can still be continued later with send_message.",
    parameters: StopParams,
    execute: (p) =>
      stop(p.handle).pipe(
        Effect.map((stopped) => stopped.length === 0 ? `Nothing was running under ${p.handle}.` : `Stopped: ${stopped.join(", ")}`),
        Effect.mapError((e) => new Tool.ToolError({ message: e.message }))
      )
  })
