import type { AgentHost } from "@dsh/agent"
import { type Events, Trace, Usage } from "@dsh/core"
import { Asker } from "@dsh/tools"
import { Cause, Effect, Exit, Fiber } from "effect"
import type { MethodName, ParamsOf, PromptResult, ResultOf } from "../Methods.ts"
import { ErrorCode } from "../Protocol.ts"
import type { Outbound } from "./ServerOutbound.ts"
import { fromHost, hostReply, type Reply, reply } from "./ServerReply.ts"

interface RunningPrompt {
  /** The turn's fiber; set right after the session is claimed. */
  inner: Fiber.Fiber<unknown, unknown> | undefined
  cancelled: boolean
}

export type Handlers = { readonly [M in Exclude<MethodName, "initialize">]: (params: ParamsOf<M>) => Effect.Effect<ResultOf<M>, Reply> }

export interface HandlerDeps {
  readonly host: AgentHost.AgentHostShape
  readonly notify: Outbound["notify"]
  readonly askerFor: (sessionId: string) => Asker.AskerShape
  readonly defaults?: { readonly cwd?: string | undefined; readonly model?: string | undefined; readonly agent?: string | undefined } | undefined
}

/** `session.prompt` and `session.cancel`, sharing the running prompt of each session. */
const makePrompts = ({ host, notify, askerFor }: HandlerDeps) => {
  const prompts = new Map<string, RunningPrompt>()

  const prompt = (params: ParamsOf<"session.prompt">): Effect.Effect<PromptResult, Reply> =>
    Effect.gen(function*() {
      const { sessionId } = params
      if (prompts.has(sessionId)) return yield* reply(ErrorCode.Busy, `session ${sessionId} is already running a prompt; wait for it or cancel it`)
      // Claimed before anything can yield, so two prompts racing for one session cannot both run.
      const running: RunningPrompt = { inner: undefined, cancelled: false }
      prompts.set(sessionId, running)
      let usage: Usage.Usage = Usage.emptyUsage
      let descendants: Usage.Usage = Usage.emptyUsage
      let lastTurnEnd: Extract<Events.AgentEvent, { type: "turn-end" }> | undefined
      const run = Effect.provideService(Trace.withTraceparent(params.traceparent)(host.prompt({
        sessionId,
        prompt: params.prompt,
        promptParts: params.promptParts,
        maxSteps: params.maxSteps,
        onEvent: (event) => {
          if (event.type === "usage") usage = Usage.addUsage(usage, event.usage)
          if (event.type === "turn-end") lastTurnEnd = event
          return notify(sessionId, undefined, event)
        },
        onChildEvent: (handle, event) => {
          if (event.type === "usage") descendants = Usage.addUsage(descendants, event.usage)
          return notify(sessionId, handle, event)
        }
      })), Asker.Asker, askerFor(sessionId))
      // The turn runs in its own fiber so `session.cancel` can interrupt it and still answer.
      const inner = yield* Effect.forkChild(run)
      running.inner = inner
      if (running.cancelled) yield* Fiber.interrupt(inner) // cancelled while it was being started
      const exit = yield* Fiber.await(inner).pipe(
        // Interrupted from outside ($/cancelRequest, shutdown): wait until the turn has really stopped.
        Effect.onInterrupt(() => Fiber.interrupt(inner)),
        // This turn's spans go out before the client hears the answer (and may close this process).
        Effect.ensuring(Trace.flushTelemetry),
        Effect.ensuring(Effect.sync(() => prompts.delete(sessionId)))
      )
      if (Exit.isSuccess(exit)) {
        const r = exit.value
        return {
          sessionId,
          status: r.status,
          result: r.result,
          usage: r.usage,
          totalUsage: Usage.addUsage(r.usage, descendants),
          ...(r.cost === undefined ? {} : { cost: r.cost }),
          subagents: r.subagents,
          ...(r.error === undefined ? {} : { error: r.error })
        }
      }
      if (running.cancelled && Cause.hasInterruptsOnly(exit.cause)) {
        const subagents = yield* host.listChildren(sessionId).pipe(Effect.orElseSucceed(() => []))
        const own = lastTurnEnd?.usage ?? usage
        return {
          sessionId,
          status: "cancelled" as const,
          result: lastTurnEnd?.result ?? "",
          usage: own,
          totalUsage: Usage.addUsage(own, descendants),
          subagents,
          error: "cancelled by the client (session.cancel)"
        }
      }
      if (Cause.hasInterruptsOnly(exit.cause)) return yield* Effect.interrupt
      const error = Cause.findErrorOption(exit.cause)
      return yield* (error._tag === "Some"
        ? hostReply(error.value)
        : reply(ErrorCode.Internal, `the prompt crashed: ${Cause.pretty(exit.cause).split("\n")[0]}`))
    })

  const cancel = (sessionId: string) =>
    Effect.suspend(() => {
      const running = prompts.get(sessionId)
      if (running === undefined) return Effect.succeed({ cancelled: false })
      running.cancelled = true
      return running.inner === undefined ? Effect.succeed({ cancelled: true }) : Fiber.interrupt(running.inner).pipe(Effect.as({ cancelled: true }))
    })

  return { prompt, cancel }
}

/** The handler of every method but `initialize`, for one connection. */
export const makeHandlers = (deps: HandlerDeps): Handlers => {
  const { host, notify, askerFor, defaults } = deps
  const { prompt, cancel } = makePrompts(deps)
  return {
    ping: () => Effect.succeed({}),
    "session.create": (p) =>
      fromHost(host.createSession({
        cwd: p.cwd ?? defaults?.cwd ?? process.cwd(),
        agent: p.agent ?? defaults?.agent,
        model: p.model ?? defaults?.model,
        // Kept in the session's state: its rules stay narrowed by the caller's across restarts.
        ...(p.permissions === undefined ? {} : { extra: { parentPermissions: p.permissions } })
      })).pipe(Effect.map((session) => ({ session }))),
    "session.load": (p) =>
      fromHost(host.loadSession(p.sessionId)).pipe(Effect.map(({ records, ...session }) => ({
        session,
        turns: records.filter((r) => r.type === "turn-end").length,
        ...(p.includeRecords === true ? { records } : {})
      }))),
    "session.list": () => fromHost(host.listSessions).pipe(Effect.map((sessions) => ({ sessions }))),
    "session.prompt": prompt,
    "session.cancel": (p) => cancel(p.sessionId),
    "children.list": (p) => fromHost(host.listChildren(p.sessionId)).pipe(Effect.map((children) => ({ children }))),
    "children.send": (p) =>
      fromHost(host.sendToChild({
        sessionId: p.sessionId,
        handle: p.handle,
        message: p.message,
        onChildEvent: (handle, event) => notify(p.sessionId, handle, event)
      })).pipe(Effect.provideService(Asker.Asker, askerFor(p.sessionId))),
    "children.stop": (p) => fromHost(host.stopChild({ sessionId: p.sessionId, handle: p.handle })).pipe(Effect.map((stopped) => ({ stopped })))
  }
}
