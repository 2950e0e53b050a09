import { type Events, Trace, Usage } from "@dsh/core"
import { type Methods, Protocol, SdkClient, type SdkError } from "@dsh/sdk"
import { Asker, InheritedDisallow, Permissions, PermissionSubject } from "@dsh/tools"
import type { OutOfProcessBackend } from "@dsh/subagent-outofprocess"
import { Effect, Ref } from "effect"
import { CONTINUATION_VERSION, DshSdkContinuation } from "../Continuation.ts"
import { childAgentOf, DSH_SDK_PROVIDER, type DshSdkProviderOptions } from "../DshSdkOptions.ts"
import { childHomeOf, ChildSetupError, writeChildConfig } from "./ChildConfig.ts"
import { describeFault } from "./Faults.ts"

const subtract = (a: Usage.Usage, b: Usage.Usage): Usage.Usage => ({
  inputTokens: a.inputTokens - b.inputTokens,
  outputTokens: a.outputTokens - b.outputTokens,
  totalTokens: a.totalTokens - b.totalTokens
})

/**
 * How a parent answers its `dsh sdk` child's `permission.ask`: by the tree's rules, asking
 * the tree's asker with the child's handle (and its own descendant's, `sdk-1/explore-1`).
 */
const answerFor = (permissions: Permissions.PermissionsShape, asker: Asker.AskerShape, handle: string) =>
(request: Methods.PermissionAskParams): Effect.Effect<Methods.PermissionAskResult> => {
  const q = request.question
  const agent = q.agent === "main" ? handle : `${handle}/${q.agent}`
  const subject = q.specifier === undefined
    ? Effect.succeed(PermissionSubject.toolSubject(q.tool, q.kind))
    : q.kind === "execute"
    ? Effect.succeed(PermissionSubject.commandSubject(q.tool, q.specifier))
    : PermissionSubject.pathSubject(q.tool, q.specifier, q.cwd, q.kind)
  return Effect.flatMap(subject, (s) => permissions.decide({ agent, cwd: q.cwd, subject: s, summary: q.summary })).pipe(
    Effect.provideService(Asker.Asker, asker),
    Effect.map((d) => (d.allowed ? { allow: true } : { allow: false, reason: d.reason ?? `the parent denied ${q.subject}` }))
  )
}

/**
 * The dsh-sdk backend as hooks over the out-of-process driver: a `dsh sdk` process whose
 * `DSH_HOME` is the child's own directory, the `@dsh/sdk` client attached to its stdio, a
 * session created (saved as `{sessionId}`) or loaded, and prompts whose main-agent events are
 * forwarded (the child frames its own turns). A cancel is `session.cancel`; the client's own
 * cancel on interruption is left to the driver's ladder (`cancelGrace: 0` on each prompt).
 */
export const sdkChildBackend = (
  options: DshSdkProviderOptions
): OutOfProcessBackend.OutOfProcessBackend<SdkClient.SdkClient, SdkError.SdkError | ChildSetupError, DshSdkContinuation> => ({
  specificationVersion: "v1",
  name: options.name ?? DSH_SDK_PROVIDER,
  description: "a separate dsh runtime in its own process, driven over the dsh SDK protocol (own session, tools and subagents; continuable)",
  turnEvents: "child",
  cancelGrace: options.cancelGrace ?? "2 seconds",
  describe: describeFault,

  launch: ({ context }) =>
    Effect.gen(function*() {
      const store = context.store
      if (store === undefined) {
        return yield* new ChildSetupError({
          message: "the dsh-sdk backend needs a session store: the child's own session lives in the parent's agents/<handle>/ directory"
        })
      }
      const home = childHomeOf(store.location)
      yield* writeChildConfig(home, options.childLimits?.(context), options.childSandbox, options.childConfigToml)
      return {
        command: options.command,
        args: options.args ?? ["sdk"],
        cwd: context.parent.cwd,
        env: { ...options.env, DSH_HOME: home },
        killGrace: options.killGrace,
        exitGrace: options.exitGrace ?? "2 seconds"
      }
    }),

  connect: ({ child, commandLine }, run) =>
    Effect.gen(function*() {
      // The child's questions are the tree's: decided by the parent's rules, asked through its asker.
      const answer = answerFor(yield* Permissions.Permissions, yield* Asker.Asker, run.context.handle)
      const client = yield* SdkClient.attach(child, {
        label: commandLine,
        clientInfo: { name: "@dsh/subagent-dsh-sdk", version: Protocol.DSH_SDK_VERSION },
        handshakeTimeout: options.handshakeTimeout ?? "15 seconds",
        maxFrameBytes: options.maxFrameBytes,
        onPermission: answer
      })
      return { connection: client, agentInfo: client.server.serverInfo }
    }),

  newSession: (client, { context, modelSpec }) =>
    Effect.gen(function*() {
      const permissions = InheritedDisallow.settingsForChildProcess(yield* Permissions.Permissions, yield* InheritedDisallow.InheritedDisallowedTools)
      const session = yield* client.createSession({
        cwd: context.parent.cwd,
        agent: childAgentOf(context.type),
        model: modelSpec,
        // The child narrows its own rules by the tree's: it can never allow what the parent would not.
        ...(permissions === undefined ? {} : { permissions })
      })
      return session.id
    }),

  resume: {
    version: CONTINUATION_VERSION,
    schema: DshSdkContinuation,
    save: (_client, sessionId) => ({ sessionId }),
    reopen: (client, saved) => Effect.as(client.loadSession(saved.sessionId), saved.sessionId)
  },

  prompt: (client, turn) =>
    Effect.gen(function*() {
      // The child's own usage events; the rest of the turn's total is its descendants'.
      const seen = yield* Ref.make(Usage.emptyUsage)
      const forward = (event: Events.AgentEvent) =>
        Effect.andThen(event.type === "usage" ? Ref.update(seen, (u) => Usage.addUsage(u, event.usage)) : Effect.void, turn.emit(event))
      // Descendants of the child keep their events in the child's own session; only its main agent's are forwarded.
      const onEvent = (e: Methods.SessionEvent) => (e.handle === undefined ? forward(e.event) : Effect.void)
      const traceparent = yield* Trace.currentTraceparent
      const result = yield* client.prompt({ sessionId: turn.sessionId, prompt: turn.text, ...(traceparent === undefined ? {} : { traceparent }) }, { onEvent, cancelGrace: 0 })
      // The descendants' usage as one event, so observers summing usage events see the whole subtree.
      const descendants = subtract(result.totalUsage, yield* Ref.get(seen))
      if (descendants.totalTokens > 0) yield* turn.emit({ type: "usage", model: "descendants", usage: descendants })
      return {
        status: result.status,
        output: result.result,
        usage: result.totalUsage,
        ...(result.error === undefined ? {} : { notes: result.error })
      }
    }),

  cancel: (client, sessionId) => client.cancel(sessionId).pipe(Effect.ignore)
})
