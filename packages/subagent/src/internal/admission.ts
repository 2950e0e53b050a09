import { Ids } from "@dsh/core"
import type { SessionStore } from "@dsh/session"
import { Clock, Effect, Exit, Scope } from "effect"
import { SubagentError } from "../SubagentError.ts"
import type { SubagentTree } from "../SubagentTree.ts"
import type { AgentType, ParentInfo, SpawnRequest } from "../Vocabulary.ts"
import type { Catalog } from "./catalog.ts"
import { isoNow, refuse } from "./common.ts"
import type { IsolatedRun } from "./run.ts"

/** A child's store: the session's (on disk) or the tree's memory one. */
export const childStore = (tree: SubagentTree, handle: string): Effect.Effect<SessionStore.ChildStore, SubagentError> =>
  tree.session === undefined ? Effect.succeed(tree.memoryStores.get(handle)) : tree.session.child(handle).pipe(
    Effect.mapError((e) => new SubagentError({ reason: "InvalidRequest", message: `cannot open ${handle}'s store: ${e.message}` }))
  )

/**
 * The child's own git worktree when its call or its type asks for one: made before anything
 * is recorded (a refusal leaves no trace), in a scope of the tree's that its run settles.
 */
const isolate = (tree: SubagentTree, request: SpawnRequest, type: AgentType, parent: ParentInfo, handle: string) =>
  Effect.gen(function*() {
    if (request.isolation !== "worktree" && type.definition.isolation !== "worktree") return undefined
    const worktrees = tree.worktrees
    if (worktrees === undefined) return yield* refuse("Isolation", `${type.name} asks for a git worktree, which this context cannot make`)
    const scope = yield* Scope.fork(tree.scope)
    const lease = yield* worktrees.acquire({ cwd: parent.cwd, session: tree.session?.id ?? "memory", handle }).pipe(
      Scope.provide(scope),
      Effect.mapError((e) => new SubagentError({ reason: "Isolation", message: e.message })),
      Effect.onError(() => Scope.close(scope, Exit.void))
    )
    return { lease, scope } satisfies IsolatedRun
  })

/**
 * Admission of a new child: checked by the catalog, counted against `max_children`, then
 * everything its first Activation needs (handle, store, worktree, descriptor, registration).
 */
export const makeAdmission = (tree: SubagentTree, catalog: Catalog) => (request: SpawnRequest, parent: ParentInfo) =>
  Effect.gen(function*() {
    const { type, provider } = yield* catalog.resolveType(request, parent)
    yield* tree.reserveChild
    const handle = yield* tree.allocateHandle(type.name)
    const runId = Ids.makeId(new Date(yield* Clock.currentTimeMillis))
    const store = yield* childStore(tree, handle)
    const worktree = yield* isolate(tree, request, type, parent, handle)
    const at = yield* isoNow
    yield* tree.descriptors.note({
      handle,
      agent: type.name,
      provider: provider.name,
      parent: parent.handle,
      depth: parent.depth + 1,
      status: "queued",
      description: request.description,
      runId,
      createdAt: at,
      updatedAt: at,
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      background: request.background === true,
      queuedAt: at,
      ...(request.cleanup === undefined ? {} : { cleanup: request.cleanup }),
      ...(store === undefined ? {} : { transcript: store.transcript.location })
    })
    const activation = (yield* tree.activations.begin(handle))!
    return { type, provider, handle, runId, store, activation, worktree }
  })

export type Admit = ReturnType<typeof makeAdmission>
