import type { Registry } from "@dsh/core"
import { Effect } from "effect"
import type { SubagentTree } from "../SubagentTree.ts"
import type { AgentType, ParentInfo, SpawnRequest, SubagentProvider } from "../Vocabulary.ts"
import { refuse } from "./common.ts"
import { toAgentType } from "./dynamicTypes.ts"

/**
 * The agent types of one context and which of them a parent may use: the first check of every
 * delegation (unknown, forbidden or unbacked types, depth, an empty prompt are refused here).
 */
export const makeCatalog = (
  tree: SubagentTree,
  providers: Registry.NamedRegistry<SubagentProvider>,
  types: Registry.NamedRegistry<AgentType>,
  dynamicProvider: string
) => {
  /** Static types first; a runtime-created type never shadows one. */
  const allTypes = Effect.gen(function*() {
    const statics = (yield* types.entries).map(([, t]) => t)
    const names = new Set(statics.map((t) => t.name))
    return [...statics, ...tree.dynamicTypes.all().filter((d) => !names.has(d.name)).map((d) => toAgentType(d, dynamicProvider))]
  })
  const findType = (name: string) => Effect.map(allTypes, (all) => all.find((t) => t.name === name))
  /** The provider registered under `name`, if any. */
  const providerOf = (name: string) => Effect.orElseSucceed(providers.get(name), () => undefined)
  const allows = (parent: ParentInfo, type: string) => parent.definition.subagents === undefined || parent.definition.subagents.includes(type)

  const availableTypes = (parent: ParentInfo) =>
    Effect.gen(function*() {
      const all = yield* allTypes
      const backed = new Set(yield* providers.names)
      // Code-point order, as agent files are discovered: `localeCompare` would load ICU's
      // collation on the first prompt (~10 ms) and depend on the machine's locale.
      return all.filter((t) => backed.has(t.provider) && allows(parent, t.name)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    })

  const resolveType = (request: SpawnRequest, parent: ParentInfo) =>
    Effect.gen(function*() {
      const names = (yield* availableTypes(parent)).map((t) => t.name).join(", ") || "(none)"
      const type = yield* findType(request.agent)
      if (type === undefined) return yield* refuse("UnknownType", `unknown agent type "${request.agent}"; available: ${names}`)
      if (!allows(parent, type.name)) {
        return yield* refuse("NotAllowed", `${parent.handle} may not delegate to "${type.name}"; allowed: ${names}`)
      }
      const provider = yield* providerOf(type.provider)
      if (provider === undefined) {
        return yield* refuse("Unsupported", `agent type "${type.name}" needs the "${type.provider}" backend, which this context does not have; available: ${names}`)
      }
      if (parent.depth + 1 > tree.limits.maxDepth) {
        return yield* refuse("DepthLimit", `nesting depth limit reached (${tree.limits.maxDepth}); do this task yourself`)
      }
      if (request.prompt.trim() === "") return yield* refuse("InvalidRequest", "the prompt is empty; say what the child should do")
      return { type, provider }
    })

  return { allTypes, findType, availableTypes, resolveType, providerOf }
}

export type Catalog = ReturnType<typeof makeCatalog>
