import { costOf, emptyUsage, makeId, type Pricing, makeRegistry, type NamedRegistry, type RegistryError } from "@dsh/core"
import { Cause, Context, Duration, Effect, Exit, Option, Scope } from "effect"
import { SubagentError } from "./SubagentError.ts"
import type { SubagentTree } from "./SubagentTree.ts"
import type {
  AgentType,
  ChildOutcome,
  ParentInfo,
  SpawnRequest,
  SubagentDescriptor,
  SubagentProvider,
  SubagentResult
} from "./Vocabulary.ts"

/**
 * `ctx.subagents`: the backends (providers) and agent types that exist in one agent
 * context, over the tree the context belongs to. A harness may give a child's context a
 * different set of providers than its parent's; the `subagent` tool offers only what its
 * own context has.
 */
export interface SubagentsShape {
  readonly tree: SubagentTree
  readonly providers: NamedRegistry<SubagentProvider>
  readonly types: NamedRegistry<AgentType>
  /** Registers a provider for the lifetime of the surrounding scope. */
  readonly register: (provider: SubagentProvider) => Effect.Effect<void, RegistryError, Scope.Scope>
  /** Agent types this parent may delegate to here: allowed by its policy and backed by a provider. */
  readonly availableTypes: (parent: ParentInfo) => Effect.Effect<ReadonlyArray<AgentType>>
  /** Runs a child to its end. Refusals are typed errors; a child's failure is a result. */
  readonly spawn: (request: SpawnRequest, parent: ParentInfo) => Effect.Effect<SubagentResult, SubagentError>
}

export class Subagents extends Context.Service<Subagents, SubagentsShape>()("@dsh/subagent/Subagents") {}

export interface SubagentsOptions {
  readonly tree: SubagentTree
  readonly providers?: ReadonlyArray<SubagentProvider> | undefined
  readonly types?: ReadonlyArray<AgentType> | undefined
  readonly pricing?: ((modelSpec: string) => Pricing | undefined) | undefined
}

const now = () => new Date().toISOString()

export const makeSubagents = (options: SubagentsOptions): Effect.Effect<SubagentsShape, RegistryError> =>
  Effect.gen(function*() {
    const { tree } = options
    const providers = yield* makeRegistry<SubagentProvider>("subagent provider")
    const types = yield* makeRegistry<AgentType>("agent type")
    for (const p of options.providers ?? []) yield* providers.registerPermanent(p.name, p)
    for (const t of options.types ?? []) yield* types.registerPermanent(t.name, t)

    const availableTypes = (parent: ParentInfo) =>
      Effect.gen(function*() {
        const all = yield* types.entries
        const backed = new Set(yield* providers.names)
        return all.map(([, t]) => t).filter((t) =>
          backed.has(t.provider) && (parent.allowedTypes === undefined || parent.allowedTypes.includes(t.name))
        ).sort((a, b) => a.name.localeCompare(b.name))
      })

    const resolveType = (request: SpawnRequest, parent: ParentInfo) =>
      Effect.gen(function*() {
        const available = yield* availableTypes(parent)
        const names = available.map((t) => t.name).join(", ") || "(none)"
        const type = yield* Effect.orElseSucceed(types.get(request.agent), () => undefined)
        if (type === undefined) {
          return yield* new SubagentError({ reason: "UnknownType", message: `unknown agent type "${request.agent}"; available: ${names}` })
        }
        if (parent.allowedTypes !== undefined && !parent.allowedTypes.includes(type.name)) {
          return yield* new SubagentError({ reason: "NotAllowed", message: `${parent.handle} may not delegate to "${type.name}"; allowed: ${names}` })
        }
        const provider = yield* Effect.orElseSucceed(providers.get(type.provider), () => undefined)
        if (provider === undefined) {
          return yield* new SubagentError({
            reason: "Unsupported",
            message: `agent type "${type.name}" needs the "${type.provider}" backend, which this context does not have; available: ${names}`
          })
        }
        if (parent.depth + 1 > tree.limits.maxDepth) {
          return yield* new SubagentError({
            reason: "DepthLimit",
            message: `nesting depth limit reached (${tree.limits.maxDepth}); do this task yourself`
          })
        }
        return { type, provider }
      })

    const spawn = (request: SpawnRequest, parent: ParentInfo): Effect.Effect<SubagentResult, SubagentError> =>
      Effect.gen(function*() {
        if (request.prompt.trim() === "") {
          return yield* new SubagentError({ reason: "InvalidRequest", message: "the prompt is empty; say what the child should do" })
        }
        const { type, provider } = yield* resolveType(request, parent)
        yield* tree.reserveChild
        const handle = yield* tree.allocateHandle(type.name)
        const runId = makeId()
        const store = tree.session === undefined ? undefined : yield* tree.session.child(handle).pipe(Effect.orElseSucceed(() => undefined))
        const createdAt = now()
        const base: SubagentDescriptor = {
          handle,
          agent: type.name,
          provider: provider.name,
          parent: parent.handle,
          depth: parent.depth + 1,
          status: "queued",
          description: request.description,
          runId,
          createdAt,
          updatedAt: createdAt,
          usage: emptyUsage,
          ...(store === undefined ? {} : { transcript: store.transcript.location })
        }
        const started = Date.now()
        const emitParent = parent.onEvent ?? (() => Effect.void)
        yield* tree.descriptors.note(base)
        let finished = false
        const finish = (outcome: ChildOutcome) =>
          Effect.gen(function*() {
            finished = true
            const durationMs = Date.now() - started
            const spec = request.model ?? type.definition.model ?? `${parent.model.provider}:${parent.model.model}`
            const cost = costOf(outcome.usage, options.pricing?.(spec))
            yield* tree.descriptors.save({
              ...(tree.descriptors.get(handle) ?? base),
              status: outcome.status,
              updatedAt: now(),
              usage: outcome.usage,
              lastResult: outcome.output.slice(0, 2000)
            })
            yield* emitParent({
              type: "subagent-end",
              handle,
              runId,
              status: outcome.status,
              usage: outcome.usage,
              durationMs,
              result: outcome.output
            })
            return {
              ...outcome,
              handle,
              runId,
              agent: type.name,
              provider: provider.name,
              durationMs,
              ...(cost === undefined ? {} : { cost }),
              ...(store === undefined ? {} : { transcript: store.transcript.location })
            } satisfies SubagentResult
          })
        const body = Effect.gen(function*() {
          yield* emitParent({
            type: "subagent-start",
            handle,
            agent: type.name,
            provider: provider.name,
            runId,
            background: request.background === true,
            description: request.description
          })
          const timeout = Duration.seconds(request.timeoutSeconds ?? tree.limits.timeoutSeconds)
          const run = provider.start({
            handle,
            runId,
            request,
            type,
            parent,
            store,
            onEvent: (event) => tree.onChildEvent(handle, event),
            childContext: tree.childContext,
            resolveModel: tree.resolveModel,
            saveContinuation: (version, data) =>
              Effect.suspend(() => {
                const current = tree.descriptors.get(handle) ?? base
                return tree.descriptors.save({ ...current, continuation: { provider: provider.name, version, data } })
              })
          })
          const outcome = yield* tree.lane.withSlot(
            Effect.suspend(() => tree.descriptors.note({ ...(tree.descriptors.get(handle) ?? base), status: "running", updatedAt: now() })).pipe(
              Effect.andThen(Effect.timeoutOption(run, timeout)),
              Effect.map((o) =>
                Option.isSome(o) ? o.value : {
                  status: "timeout" as const,
                  output: "",
                  usage: emptyUsage,
                  notes: `the child did not finish within ${Duration.format(timeout)} and was stopped`
                }
              )
            ),
            tree.descriptors.note({ ...base, status: "queued" })
          ).pipe(
            Effect.exit,
            Effect.flatMap((exit): Effect.Effect<ChildOutcome> =>
              Exit.isSuccess(exit)
                ? Effect.succeed(exit.value)
                : Cause.hasInterruptsOnly(exit.cause)
                ? Effect.failCause(exit.cause)
                : Effect.succeed({ status: "failed", output: "", usage: emptyUsage, notes: `the child crashed: ${Cause.pretty(exit.cause).split("\n")[0]}` })
            )
          )
          return yield* finish(outcome)
        })
        // Interruption at any point after the descriptor exists is recorded, exactly once.
        return yield* body.pipe(Effect.onInterrupt(() =>
          finished
            ? Effect.void
            : finish({ status: "cancelled", output: "", usage: emptyUsage, notes: "cancelled with its parent" }).pipe(Effect.asVoid)
        ))
      })

    return {
      tree,
      providers,
      types,
      register: (provider) => providers.register(provider.name, provider),
      availableTypes,
      spawn
    } satisfies SubagentsShape
  })
