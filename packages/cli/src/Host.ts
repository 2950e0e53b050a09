import { type AgentHostShape, HostError, type HostSessionInfo } from "@dsh/agent"
import type { AgentEvent } from "@dsh/core"
import { ModelRegistry, RetryPolicy } from "@dsh/llm"
import { type SessionState, SessionStore } from "@dsh/session"
import { ProcessLauncher } from "@dsh/subprocess"
import { Effect } from "effect"
import { exitFor } from "./CliError.ts"
import { loadConfig } from "./Config.ts"
import { childSummary, descriptorsOf } from "./Children.ts"
import type { CliContext } from "./Context.ts"
import { checkDirectory } from "./Directories.ts"
import { resolveMainAgent } from "./MainAgent.ts"
import { makeMainContext, runMainAgent } from "./RunMain.ts"
import { requestStop } from "./StopRequests.ts"

const info = (s: SessionState): HostSessionInfo => ({
  id: s.id,
  agent: s.agent,
  cwd: s.cwd,
  model: s.model,
  status: s.status,
  createdAt: s.createdAt,
  updatedAt: s.updatedAt
})

/** Any failure as a HostError: input problems stay input problems (exit 2 / invalid params). */
const toHostError = (error: unknown): HostError => {
  if (error instanceof HostError) return error
  const { code, line } = exitFor(error)
  const reason = (error as { reason?: string }).reason
  const notFound = reason === "NotFound" || reason === "UnknownHandle"
  return new HostError({ reason: notFound ? "NotFound" : code === 2 ? "InvalidInput" : "Failed", message: line })
}

export interface CreateOptions {
  readonly cwd: string
  readonly agent?: string | undefined
  readonly agentFile?: string | undefined
  readonly model?: string | undefined
  readonly trustProject?: boolean | undefined
}

/**
 * The dsh agent host: sessions in the file store, the main agent resolved from agent
 * files, children through the reference harness. `dsh run`, `dsh acp` and `dsh sdk` all
 * go through it, so they behave the same.
 */
export const makeCliHost = (ctx: CliContext) =>
  Effect.gen(function*() {
    const registry = yield* ModelRegistry
    const store = yield* SessionStore
    const launcher = yield* ProcessLauncher
    const provide = <A, E>(effect: Effect.Effect<A, E, ModelRegistry | SessionStore | ProcessLauncher>) =>
      effect.pipe(
        Effect.provideService(ModelRegistry, registry),
        Effect.provideService(SessionStore, store),
        Effect.provideService(ProcessLauncher, launcher)
      )

    /** Checks everything first, then creates: bad input leaves nothing behind. */
    const create = (options: CreateOptions) =>
      Effect.gen(function*() {
        yield* checkDirectory(options.cwd)
        const config = yield* loadConfig(ctx.home)
        const spec = options.model ?? config.model ?? ctx.env.DSH_MODEL ?? "scripted"
        yield* registry.resolve(spec, { env: ctx.env, cwd: ctx.cwd })
        const agent = yield* resolveMainAgent({
          ctx,
          config,
          cwd: options.cwd,
          agent: options.agent,
          agentFile: options.agentFile,
          trustProject: options.trustProject
        })
        return yield* store.create({
          agent: agent.definition.name,
          cwd: options.cwd,
          model: spec,
          extra: {
            ...(options.agentFile === undefined ? {} : { agentFile: options.agentFile }),
            ...(options.trustProject === true ? { trustProject: true } : {})
          }
        })
      })

    /** Everything a session's main agent runs with: its state, config, model and agent. */
    const prepare = (sessionId: string) =>
      Effect.gen(function*() {
        const session = yield* store.open(sessionId)
        const state = yield* session.readState
        const config = yield* loadConfig(ctx.home)
        const model = yield* registry.resolve(state.model, { env: ctx.env, cwd: ctx.cwd })
        const agent = yield* resolveMainAgent({
          ctx,
          config,
          cwd: state.cwd,
          bound: state.agent,
          agentFile: typeof state.agentFile === "string" ? state.agentFile : undefined,
          trustProject: state.trustProject === true
        })
        const retry = yield* RetryPolicy
        const retryPolicy = {
          maxRetries: config.llm.maxRetries ?? retry.maxRetries,
          baseDelay: config.llm.retryBaseMs === undefined ? retry.baseDelay : `${config.llm.retryBaseMs} millis`,
          maxDelay: retry.maxDelay
        }
        return {
          retryPolicy,
          options: {
            session,
            cwd: state.cwd,
            model,
            modelSpec: state.model,
            agent,
            delegationTypes: agent.delegationTypes,
            renderPrompt: agent.renderPrompt,
            config,
            ctx
          }
        }
      })

    const prompt: AgentHostShape["prompt"] = (options) =>
      provide(Effect.gen(function*() {
        const { options: base, retryPolicy } = yield* prepare(options.sessionId)
        return yield* runMainAgent({
          ...base,
          prompt: options.prompt,
          maxSteps: options.maxSteps,
          onEvent: options.onEvent ?? (() => Effect.void),
          onChildEvent: options.onChildEvent
        }).pipe(Effect.provideService(RetryPolicy, retryPolicy))
      })).pipe(Effect.mapError(toHostError))

    /**
     * Continues a child of a session from outside any run (`dsh subagents send`): cold from
     * disk when no process holds it. The reply is the child's result.
     */
    const continueChild = (
      sessionId: string,
      handle: string,
      message: string,
      onChildEvent?: (handle: string, event: AgentEvent) => Effect.Effect<void>
    ) =>
      provide(Effect.gen(function*() {
        const { options: base, retryPolicy } = yield* prepare(sessionId)
        return yield* Effect.gen(function*() {
          const main = yield* makeMainContext({ ...base, onEvent: () => Effect.void, onChildEvent })
          const outcome = yield* main.subagents.send(handle, message, "user")
          if (outcome._tag !== "Replied") return yield* new HostError({ reason: "Failed", message: `${handle} did not reply` })
          return outcome.result
        }).pipe(Effect.scoped, Effect.provideService(RetryPolicy, retryPolicy))
      })).pipe(Effect.mapError(toHostError))

    const host: AgentHostShape & { readonly create: typeof create; readonly continueChild: typeof continueChild } = {
      create,
      continueChild,
      createSession: (options) =>
        create(options).pipe(
          Effect.flatMap((s) => s.readState),
          Effect.map(info),
          Effect.mapError(toHostError)
        ),
      loadSession: (id) =>
        Effect.gen(function*() {
          const session = yield* store.open(id)
          const state = yield* session.readState
          const { records } = yield* session.transcript.read
          return { ...info(state), records }
        }).pipe(Effect.mapError(toHostError)),
      listSessions: store.list.pipe(Effect.map((xs) => xs.map(info)), Effect.mapError(toHostError)),
      prompt,
      // The SDK's `children.send`: the same cold/warm continuation as `dsh subagents send`.
      sendToChild: (o) =>
        continueChild(o.sessionId, o.handle, o.message, o.onChildEvent).pipe(Effect.map((r) => ({
          handle: r.handle,
          status: r.status,
          result: r.output,
          usage: r.usage,
          ...(r.notes === undefined ? {} : { notes: r.notes })
        }))),
      // The SDK's `children.stop`: the same cross-process stop as `dsh subagents stop`.
      stopChild: (o) =>
        store.open(o.sessionId).pipe(
          Effect.flatMap((session) => requestStop(session, o.handle)),
          Effect.map((stopped) => stopped.map((s) => s.name)),
          Effect.mapError(toHostError)
        ),
      listChildren: (sessionId) =>
        Effect.gen(function*() {
          const session = yield* store.open(sessionId)
          const state = yield* session.readState
          return descriptorsOf(state).map(childSummary)
        }).pipe(Effect.mapError(toHostError))
    }
    return host
  })

export type CliHost = Effect.Success<ReturnType<typeof makeCliHost>>
