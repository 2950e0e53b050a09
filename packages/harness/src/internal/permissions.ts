import type { AgentCatalog, AgentHost } from "@dsh/agent"
import type { SessionStore } from "@dsh/session"
import { Hooks, InheritedDisallow, Permissions } from "@dsh/tools"
import { Effect } from "effect"
import type { HarnessOptions } from "../HarnessOptions.ts"
import { sessionPermissions } from "../SessionPermissions.ts"

/** How many sessions' permission answers a host keeps (least recently used go first). */
const PERMISSIONS_KEPT = 256

/**
 * One Permissions per session, so "always" answers outlast a runtime: the most recently used
 * PERMISSIONS_KEPT of them (a long-lived host must not keep one per session it ever ran).
 * A session without rules has none to keep.
 */
export const makePermissionsCache = (source: HarnessOptions<unknown, unknown>["permissions"]) => {
  const permissionsBySession = new Map<string, Permissions.PermissionsShape>()
  return (state: SessionStore.SessionState): Effect.Effect<Permissions.PermissionsShape | undefined, AgentHost.HostError> => {
    const known = permissionsBySession.get(state.id)
    if (known !== undefined) {
      permissionsBySession.delete(state.id)
      permissionsBySession.set(state.id, known)
      return Effect.succeed<Permissions.PermissionsShape | undefined>(known)
    }
    return sessionPermissions(source, { cwd: state.cwd, agent: state.agent, extra: state }).pipe(
      Effect.tap((p) =>
        Effect.sync(() => {
          if (p === undefined) return
          if (permissionsBySession.size >= PERMISSIONS_KEPT) permissionsBySession.delete(permissionsBySession.keys().next().value!)
          permissionsBySession.set(state.id, p)
        })
      )
    )
  }
}

/** What governs a session's agents: its rules, its main agent's profile, its hooks. */
export interface SessionRules {
  readonly permissions: Permissions.PermissionsShape | undefined
  readonly catalog: AgentCatalog.AgentCatalog
  readonly hooks: Hooks.HooksShape
}

/**
 * Runs `effect` under the session's rules (when the harness or a parent gave any), with the
 * main agent's `disallowedTools` binding every agent the effect starts.
 */
export const governed = <A, E, R>(rt: SessionRules, hooked: Effect.Effect<A, E, R>) => {
  // The session's hooks, like its rules, reach every agent the effect starts (a fiber reference).
  // The main agent's own `hooks` frontmatter applies to it alone (children get the tree's and theirs).
  const effect = rt.hooks === Hooks.noHooks ? hooked : Effect.provideService(hooked, Hooks.Hooks, rt.hooks.forAgent(rt.catalog.main.name, rt.catalog.main.hooks))
  if (rt.permissions === undefined) return InheritedDisallow.bindDisallowedTools(rt.catalog.main.disallowedTools)(effect)
  // A parent process's agents' disallowedTools (in its settings) bind this whole tree too.
  const bound = InheritedDisallow.bindDisallowedTools(rt.catalog.main.disallowedTools)(effect).pipe(
    Effect.provideService(InheritedDisallow.InheritedDisallowedTools, InheritedDisallow.disallowedBySettings(rt.permissions.settings))
  )
  return Effect.provideService(bound, Permissions.Permissions, rt.permissions)
}
