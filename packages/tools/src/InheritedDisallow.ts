import { Context, Effect } from "effect"
import { PermissionRuleError, readPermissionRule } from "./PermissionRule.ts"
import type { PermissionSettings } from "./PermissionPolicy.ts"
import { Permissions, type PermissionsShape } from "./Permissions.ts"

/**
 * The `disallowedTools` of every agent above the calling fiber (its ancestors, the main agent
 * included): an agent's `disallowedTools` bind its whole subtree, so no descendant of any
 * backend may use them. Its `tools` allow-list stays its own (a read-only lead may still
 * delegate writing). Empty by default; set by {@link bindDisallowedTools}.
 */
export const InheritedDisallowedTools = Context.Reference<ReadonlyArray<string>>("@dsh/tools/InheritedDisallowedTools", { defaultValue: () => [] })

/** Names as a settings layer that only denies: `bypass` in a layer widens nothing (the strictest layer wins). */
const denyLayer = (names: ReadonlyArray<string>): PermissionSettings => ({
  mode: "bypass",
  // A name no rule can spell (none should exist: they are tool names) still binds in process.
  deny: names.filter((name) => !(readPermissionRule(name) instanceof PermissionRuleError)),
  origin: "disallowedTools"
})

/**
 * Runs `effect` (an agent's turns, with everything they start) with `own` added to the
 * inherited disallow set. In-process children read the set when their toolbox is built; to
 * reach children in other processes (`sdk:dsh`, `acp:dsh`, cluster runners, an ACP agent's
 * permission requests) the names also become deny rules of the tree's `Permissions`, whose
 * settings travel with every out-of-process child and can only be narrowed there. Without
 * configured rules the `Permissions` are left as they are: a deny layer would switch rules on.
 */
export const bindDisallowedTools = (own: ReadonlyArray<string> | undefined) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.gen(function*() {
    const inherited = yield* InheritedDisallowedTools
    const added = [...new Set(own ?? [])].filter((name) => !inherited.includes(name))
    if (added.length === 0) return yield* effect
    const bound = Effect.provideService(effect, InheritedDisallowedTools, [...inherited, ...added])
    const permissions = yield* Permissions
    if (!permissions.configured) return yield* bound
    const narrowed = yield* permissions.narrow(denyLayer(added)).pipe(
      Effect.tapError((e) => Effect.logWarning(`disallowedTools could not become deny rules: ${e.message}`)),
      Effect.orElseSucceed(() => permissions)
    )
    return yield* Effect.provideService(bound, Permissions, narrowed)
  })

/** The denial an agent's model reads for a tool an ancestor disallows. */
export const inheritedDenial = (tool: string): string =>
  `Error: permission denied: ${tool} is denied: an agent above this one lists ${tool} in disallowedTools, which binds every agent it delegates to.`

/**
 * The names a parent process's settings disallow for this whole tree (its deny layers of origin
 * `disallowedTools`): what a child process provides as `InheritedDisallowedTools`, so its own
 * agents are not offered those tools either.
 */
export const disallowedBySettings = (settings: ReadonlyArray<PermissionSettings>): ReadonlyArray<string> => [
  ...new Set(settings.flatMap((s) => (s.origin === "disallowedTools" ? s.deny ?? [] : [])))
]

/**
 * The settings a child dsh process (`sdk:dsh`, `acp:dsh`) narrows its own rules by: the tree's
 * (which hold the inherited names as deny layers), or, without configured rules, the inherited
 * names alone as a deny layer (narrowing there, never widening); undefined when there is nothing.
 */
export const settingsForChildProcess = (
  permissions: PermissionsShape,
  inherited: ReadonlyArray<string>
): ReadonlyArray<PermissionSettings> | undefined =>
  permissions.configured ? permissions.settings : inherited.length === 0 ? undefined : [denyLayer(inherited)]
