import { Effect, Schema } from "effect"
// The two modules, not the \`effect/ai\` index: that one also loads the MCP, HTTP and RPC modules
// (about 100 files) on every import of the kit.
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import type { JsonSchema } from "effect"
import type { KitToolDefinition } from "./ToolDefinition.ts"

const dynamicTool = <const Name extends string>(name: Name, d: KitToolDefinition) =>
  Tool.dynamic(name, { description: d.description, parameters: d.inputSchema as JsonSchema.JsonSchema, success: Schema.String })

/**
 * The kit's tools as an `effect/ai` toolkit with its handler layer: `LanguageModel.generateText({
 * toolkit })` under `Effect.provide(layer)`. Interrupting the call stops the child it started.
 */
export const makeEffectAiTools = (definitions: ReadonlyArray<KitToolDefinition>) => {
  const byName = new Map(definitions.map((d) => [d.name, d]))
  const get = (name: string) => byName.get(name)!
  const toolkit = Toolkit.make(
    dynamicTool("subagent", get("subagent")),
    dynamicTool("send_message", get("send_message")),
    dynamicTool("list_agents", get("list_agents")),
    dynamicTool("wait", get("wait"))
  )
  // `Effect.promise` hands the call an AbortSignal that fires when the fiber is interrupted.
  const handler = (name: string) => (params: unknown) => Effect.promise((signal) => get(name).execute(params, { signal }))
  const layer = toolkit.toLayer({
    subagent: handler("subagent"),
    send_message: handler("send_message"),
    list_agents: handler("list_agents"),
    wait: handler("wait")
  })
  return { toolkit, layer }
}
