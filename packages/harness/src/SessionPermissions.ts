import { AgentHost } from "@dsh/agent"
import { PermissionPolicy, PermissionRule, Permissions } from "@dsh/tools"
import { Effect, Result, Schema } from "effect"
import type { CatalogRequest } from "./CatalogRequest.ts"

/**
 * Where a session's permission rules come from: fixed settings (each later entry narrowing
 * the ones before), or settings computed per session (e.g. a project's rules, when the
 * project is trusted).
 */
export type PermissionsSource =
  | PermissionPolicy.PermissionSettings
  | ReadonlyArray<PermissionPolicy.PermissionSettings>
  | ((request: CatalogRequest) => Effect.Effect<PermissionPolicy.PermissionSettings | ReadonlyArray<PermissionPolicy.PermissionSettings>, AgentHost.HostError>)

/**
 * The key of a session's `extra` under which a parent process passes its own stack of settings
 * (`PermissionsShape.settings`): the session then decides by its own rules narrowed by its
 * parent's, so a child process can never allow what its parent would not.
 */
export const PARENT_PERMISSIONS_KEY = "parentPermissions"

const decodeWritten = Schema.decodeUnknownResult(Schema.Array(PermissionPolicy.PermissionSettingsAsWritten))

/** A parent's settings as a session's state holds them, modes read; anything malformed is refused. */
export const decodeParentPermissions = (value: unknown): ReadonlyArray<PermissionPolicy.PermissionSettings> | AgentHost.HostError => {
  if (value === undefined) return []
  const decoded = decodeWritten(value)
  if (Result.isFailure(decoded)) {
    return new AgentHost.HostError({ reason: "InvalidInput", message: `${PARENT_PERMISSIONS_KEY} must be a list of {mode?, allow?, ask?, deny?, origin?}` })
  }
  const out: Array<PermissionPolicy.PermissionSettings> = []
  for (const { mode, ...rest } of decoded.success) {
    const read = mode === undefined ? undefined : PermissionRule.parsePermissionMode(mode)
    if (mode !== undefined && read === undefined) {
      return new AgentHost.HostError({ reason: "InvalidInput", message: `${PARENT_PERMISSIONS_KEY}: unknown permission mode "${mode}" (${PermissionRule.PERMISSION_MODES.join(", ")})` })
    }
    out.push(read === undefined ? rest : { ...rest, mode: read })
  }
  return out
}

/**
 * The `Permissions` of one session: the harness's settings narrowed by a parent's (from the
 * session's `extra`); undefined when neither exists (the caller's own then apply). A malformed
 * rule is `InvalidInput` naming it.
 */
export const sessionPermissions = (
  source: PermissionsSource | undefined,
  request: CatalogRequest
): Effect.Effect<Permissions.PermissionsShape | undefined, AgentHost.HostError> =>
  Effect.gen(function*() {
    const parent = decodeParentPermissions(request.extra[PARENT_PERMISSIONS_KEY])
    if (parent instanceof AgentHost.HostError) return yield* parent
    const own = source === undefined ? [] : typeof source === "function" ? yield* source(request) : source
    const stack = [...(Array.isArray(own) ? own : [own as PermissionPolicy.PermissionSettings]), ...parent]
    if (stack.length === 0) return undefined
    // Without settings of its own, a session with a parent's rules starts from "everything allowed".
    return yield* Permissions.make(...(source === undefined ? [{ mode: "bypass" as const }, ...stack] : stack)).pipe(
      Effect.mapError((e) => new AgentHost.HostError({ reason: "InvalidInput", message: e.message }))
    )
  })
