import type { Subagents } from "@dsh/subagent"
import type { PermissionPolicy } from "@dsh/tools"
import { Context, type Effect, Schema, type Scope } from "effect"

/**
 * What a runner needs to host a session's child: a tree for it over the session, built the way
 * the session's owner builds its tree (its agents, backends, tools and models), in a process
 * that does not own the session (`makeSubagentTree({ owner: false, admission: "session" })`).
 * A harness provides it; `@dsh/harness`'s `makeSessionHost` is the reference.
 */
export interface ChildHostShape {
  /**
   * The hosting `Subagents` of one child of a session, for the calling scope; its runs decide by
   * the harness's rules narrowed by `parentPermissions` (the admitting process's).
   */
  readonly open: (
    sessionId: string,
    handle: string,
    parentPermissions?: ReadonlyArray<PermissionPolicy.PermissionSettings> | undefined
  ) => Effect.Effect<Subagents.SubagentsShape, ChildHostError, Scope.Scope>
}

/** A session a runner cannot host (missing, unreadable, or its model unavailable here). */
export class ChildHostError extends Schema.TaggedError<ChildHostError>()("ChildHostError", { message: Schema.String }) {}

export class ChildHost extends Context.Service<ChildHost, ChildHostShape>()("@dsh/subagent-cluster/ChildHost") {}
