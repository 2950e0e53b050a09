import { makeRegistry, type NamedRegistry, type RegistryError } from "@dsh/core"
import { Context, Effect, Layer, Scope } from "effect"
import type { AnyTool } from "./Tool.ts"

/**
 * `ctx.tools`: the tools that exist in one agent context. A child's context gets its own
 * instance, so a harness decides per context which tools exist at all; agent policies then
 * narrow that set per agent.
 */
export interface ToolsShape {
  readonly registry: NamedRegistry<AnyTool>
  readonly register: (tool: AnyTool) => Effect.Effect<void, RegistryError, Scope.Scope>
  readonly all: Effect.Effect<ReadonlyArray<AnyTool>>
}

export const makeTools = (initial: ReadonlyArray<AnyTool> = []): Effect.Effect<ToolsShape, RegistryError> =>
  Effect.gen(function*() {
    const registry = yield* makeRegistry<AnyTool>("tool")
    for (const tool of initial) yield* registry.registerPermanent(tool.name, tool)
    return {
      registry,
      register: (tool) => registry.register(tool.name, tool),
      all: Effect.map(registry.entries, (entries) => entries.map(([, t]) => t))
    }
  })

export class Tools extends Context.Service<Tools, ToolsShape>()("@dsh/tools/Tools") {
  static readonly layer = (initial: ReadonlyArray<AnyTool> = []): Layer.Layer<Tools, RegistryError> =>
    Layer.effect(Tools, makeTools(initial))
}
