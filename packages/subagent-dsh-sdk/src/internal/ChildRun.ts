import { addUsage, type AgentEvent, emptyUsage, isEphemeral, type Usage } from "@dsh/core"
import { DSH_SDK_VERSION, type PromptResult, type SdkClient, SdkClient as Sdk, type SdkError, type SessionEvent } from "@dsh/sdk"
import type { ChildOutcome, StartContext, SubagentLimitsInput } from "@dsh/subagent"
import { ProcessLauncher, type ProcessLauncherShape, type SubprocessError } from "@dsh/subprocess"
import { Effect } from "effect"
import { mkdir, writeFile } from "node:fs/promises"
import { join } from "node:path"
import type { DshSdkContinuation } from "../Continuation.ts"
import { childAgentOf, type DshSdkProviderOptions } from "../DshSdkProvider.ts"

type Options = DshSdkProviderOptions & { readonly launcher: ProcessLauncherShape }
type Mode = { readonly _tag: "Start"; readonly prompt: string } | { readonly _tag: "Continue"; readonly prompt: string }

const failed = (notes: string, usage: Usage = emptyUsage): ChildOutcome => ({ status: "failed", output: "", usage, notes })

const subtract = (a: Usage, b: Usage): Usage => ({
  inputTokens: a.inputTokens - b.inputTokens,
  outputTokens: a.outputTokens - b.outputTokens,
  totalTokens: a.totalTokens - b.totalTokens
})

/** What went wrong with the child, worded for the parent (and its model). */
const describeFault = (error: SdkError | SubprocessError): string => {
  if (error._tag === "SubprocessError") return `could not start the dsh sdk child: ${error.message}`
  switch (error.reason) {
    case "ConnectionClosed":
      return `the dsh sdk child ended unexpectedly: ${error.message}`
    case "ProtocolViolation":
      return `the dsh sdk child broke the protocol and was stopped: ${error.message}`
    case "FrameTooLarge":
      return `the dsh sdk child sent an oversized frame and was stopped: ${error.message}`
    case "Timeout":
      return `the dsh sdk child did not become ready: ${error.message}`
    case "Remote":
      return `the dsh sdk child refused: ${error.message}`
  }
}

/** The child's `config.toml` (its `DSH_HOME` is its own directory): only the limits it inherits. */
const writeChildConfig = (dir: string, limits: SubagentLimitsInput | undefined) =>
  Effect.tryPromise({
    try: async () => {
      await mkdir(dir, { recursive: true })
      if (limits === undefined) return
      const keys: ReadonlyArray<readonly [keyof SubagentLimitsInput, string]> = [
        ["maxDepth", "max_depth"],
        ["maxConcurrent", "max_concurrent"],
        ["timeoutSeconds", "timeout_seconds"],
        ["maxChildren", "max_children"]
      ]
      const lines = keys.flatMap(([k, toml]) => (limits[k] === undefined ? [] : [`${toml} = ${Math.max(0, limits[k])}`]))
      await writeFile(join(dir, "config.toml"), `# Written by the dsh-sdk backend for this child.\n[limits]\n${lines.join("\n")}\n`)
    },
    catch: (error) => `cannot prepare the child's directory ${dir}: ${error instanceof Error ? error.message : String(error)}`
  })

/**
 * One run of an SDK child (start or continue), in its own process: spawn, handshake, create or
 * load the child's session, run the prompt (then any messages queued meanwhile), end with the
 * runtime's status. Every fault becomes a `failed` outcome with the reason; interruption
 * cancels the turn, then closes the process (see `SdkClient.spawn`).
 */
export const runSdkChild = (options: Options, context: StartContext, mode: Mode): Effect.Effect<ChildOutcome> =>
  Effect.gen(function*() {
    const store = context.store
    if (store === undefined) {
      return failed("the dsh-sdk backend needs a session store: the child's own session lives in the parent's agents/<handle>/ directory")
    }
    // On continue, the service has checked and decoded the saved envelope (`DshSdkContinuation`).
    let sessionId: string | undefined = mode._tag === "Continue" ? (context.continuation as DshSdkContinuation).sessionId : undefined
    const prepared = yield* Effect.result(writeChildConfig(store.location, options.childLimits?.(context)))
    if (prepared._tag === "Failure") return failed(prepared.failure)

    let seen: Usage = emptyUsage // the child's own usage events, for outcomes without a result
    const forward = (event: AgentEvent): Effect.Effect<void> =>
      Effect.gen(function*() {
        if (event.type === "usage") seen = addUsage(seen, event.usage)
        if (!isEphemeral(event)) yield* store.transcript.append(event).pipe(Effect.ignore)
        yield* context.onEvent(event)
      })
    // Descendants of the child keep their events in the child's own session; only its main agent's are forwarded.
    const onEvent = (e: SessionEvent) => (e.handle === undefined ? forward(e.event) : Effect.void)
    const spec = context.request.model ?? context.type.definition.model ?? `${context.parent.model.provider}:${context.parent.model.model}`
    const startedAt = new Date().toISOString()
    const meta = (status: string, extra: Record<string, unknown> = {}) =>
      store.writeMeta({
        handle: context.handle,
        runId: context.runId,
        agent: context.type.name,
        provider: context.type.provider,
        parent: context.parent.handle,
        depth: context.parent.depth + 1,
        model: spec,
        status,
        startedAt,
        ...(sessionId === undefined ? {} : { sessionId }),
        ...extra
      }).pipe(Effect.ignore)

    const turns = (client: SdkClient, id: string) =>
      Effect.gen(function*() {
        const prompt = (text: string) => client.prompt({ sessionId: id, prompt: text }, { onEvent, cancelGrace: options.cancelGrace })
        let result: PromptResult = yield* prompt(mode.prompt)
        let total = result.totalUsage
        // Messages sent while the child ran go to the same process as its next turns (warm).
        while (result.status === "completed") {
          const queued = yield* context.takeMessages
          if (queued.length === 0) break
          for (const message of queued) {
            result = yield* prompt(message)
            total = addUsage(total, result.totalUsage)
          }
        }
        return { result, total }
      })

    const session = Effect.gen(function*() {
      const client = yield* Sdk.spawn({
        command: options.command,
        args: options.args ?? ["sdk"],
        cwd: context.parent.cwd,
        env: { ...options.env, DSH_HOME: store.location },
        clientInfo: { name: "@dsh/subagent-dsh-sdk", version: DSH_SDK_VERSION },
        handshakeTimeout: options.handshakeTimeout ?? "15 seconds",
        exitGrace: options.exitGrace,
        killGrace: options.killGrace,
        maxFrameBytes: options.maxFrameBytes
      })
      if (sessionId === undefined) {
        const created = yield* client.createSession({ cwd: context.parent.cwd, agent: childAgentOf(context.type), model: spec })
        sessionId = created.id
        yield* context.saveContinuation({ sessionId: created.id } satisfies DshSdkContinuation)
      } else {
        yield* client.loadSession(sessionId)
      }
      yield* meta("running")
      const { result, total } = yield* turns(client, sessionId)
      // The child's descendants' usage, as one event, so observers summing usage events see the whole subtree.
      const descendants = subtract(total, seen)
      if (descendants.totalTokens > 0) yield* forward({ type: "usage", model: "descendants", usage: descendants })
      return {
        status: result.status,
        output: result.result,
        usage: total,
        ...(result.error === undefined ? {} : { notes: result.error })
      } satisfies ChildOutcome
    }).pipe(Effect.scoped, Effect.provideService(ProcessLauncher, options.launcher))

    const outcome = yield* session.pipe(
      Effect.catch((error: SdkError | SubprocessError) => Effect.succeed(failed(describeFault(error), seen))),
      Effect.onInterrupt(() => meta("cancelled", { endedAt: new Date().toISOString() }))
    )
    yield* meta(outcome.status, { endedAt: new Date().toISOString() })
    return outcome
  }).pipe(Effect.ensuring(context.store === undefined ? Effect.void : context.store.transcript.sync.pipe(Effect.ignore)))
