import type { AgentDefinition } from "@dsh/agent"
import { Ids } from "@dsh/core"
import { Clock, Deferred, Effect, Schema } from "effect"
import type { SubagentDescriptor } from "../Records.ts"
import { SubagentError } from "../SubagentError.ts"
import type { SubagentTree } from "../SubagentTree.ts"
import type { AgentType, ParentInfo, SpawnRequest, SubagentProvider } from "../Vocabulary.ts"
import { childStore } from "./admission.ts"
import type { Catalog } from "./catalog.ts"
import { isoNow, refuse } from "./common.ts"
import type { Launcher } from "./launch.ts"
import type { SendOutcome } from "./outcomes.ts"
import type { RunSpec } from "./run.ts"

/** Who continues a child when the user (not an agent) sends it a message. */
const userParent = (d: SubagentDescriptor, tree: SubagentTree): ParentInfo => ({
  handle: d.parent,
  depth: d.depth - 1,
  cwd: tree.cwd,
  model: tree.defaultModel,
  definition: { name: d.parent, description: "", systemPrompt: "", override: false, scope: "runtime", source: "user" } satisfies AgentDefinition.AgentDefinition
})

/** A child `from` may reach, by handle (one admitted by another process is learnt from the store). */
export const knownChild = (tree: SubagentTree, handle: string, from: string) =>
  Effect.gen(function*() {
    if (tree.descriptors.get(handle) === undefined) yield* tree.descriptors.refresh.pipe(Effect.ignore)
    const d = tree.descriptors.get(handle)
    if (d === undefined) {
      const mine = tree.descriptors.all().filter((x) => tree.isReachable(x.handle, from)).map((x) => x.handle)
      return yield* refuse("UnknownHandle", `no child is named "${handle}"; yours: ${mine.join(", ") || "(none)"}`)
    }
    if (!tree.isReachable(handle, from)) return yield* refuse("NotOwner", `"${handle}" is not a descendant of ${from}`)
    return d
  })

/** The provider's saved data for `d`, checked and decoded; providers without a Schema get it as stored. */
const continuationOf = (provider: SubagentProvider, d: SubagentDescriptor) =>
  Effect.gen(function*() {
    const spec = provider.continuation
    if (spec === undefined) return d.continuation?.data
    const saved = d.continuation
    const invalid = (why: string) => refuse("InvalidContinuation", `${d.handle} cannot be continued: ${why}`)
    if (saved === undefined) return yield* invalid(`no ${provider.name} continuation was saved for it`)
    if (saved.provider !== provider.name) return yield* invalid(`its continuation belongs to "${saved.provider}", not "${provider.name}"`)
    if (saved.version !== spec.version) return yield* invalid(`its continuation is version ${saved.version}; "${provider.name}" reads version ${spec.version}`)
    const decoded = Schema.decodeUnknownResult(spec.schema)(saved.data)
    if (decoded._tag === "Failure") return yield* invalid(`its saved continuation is malformed: ${decoded.failure.message.split("\n")[0]}`)
    return decoded.success
  })

/**
 * Whether an idle child can be continued here (its provider, its saved continuation, its
 * transcript): the provider and its decoded continuation when it can.
 */
const checkContinuable = (tree: SubagentTree, catalog: Catalog, d: SubagentDescriptor) =>
  Effect.gen(function*() {
    const { handle } = d
    const provider = yield* catalog.providerOf(d.provider)
    if (provider?.continue === undefined) {
      return yield* refuse("Unsupported", `${handle} ran on "${d.provider}", which cannot be continued here`)
    }
    const continuation = yield* continuationOf(provider, d)
    if (provider.checkContinue !== undefined) {
      yield* provider.checkContinue({ handle, lifetime: tree.scope, continuation }).pipe(
        Effect.mapError((why) => new SubagentError({ reason: "Unsupported", message: `${handle} cannot be continued: ${why}` }))
      )
    }
    // A child that ran is its transcript: continuing one whose transcript is gone would lose its context.
    const history = d.status === "queued" ? undefined : yield* childStore(tree, handle)
    if (history !== undefined && (yield* history.transcript.read.pipe(Effect.map((r) => r.records.length), Effect.orElseSucceed(() => 0))) === 0) {
      return yield* refuse("InvalidContinuation", `${handle} cannot be continued: its transcript is missing (${history.transcript.location})`)
    }
    return { provider, continuation }
  })

export interface SendOptions {
  readonly background?: boolean
  readonly detachable?: boolean
}

/**
 * Messages to children: queued for a running Activation (or forwarded to where it runs), or a
 * new Activation of an idle child, warm or cold from disk.
 */
export const makeMessaging = (tree: SubagentTree, catalog: Catalog, launcher: Launcher) => {
  const send = (handle: string, message: string, from: ParentInfo | "user", sendOptions?: SendOptions): Effect.Effect<SendOutcome, SubagentError> =>
    Effect.gen(function*() {
      const d = yield* knownChild(tree, handle, from === "user" ? "user" : from.handle)
      if (yield* tree.activations.deliver(handle, message)) return { _tag: "Queued", handle } satisfies SendOutcome
      const { provider, continuation } = yield* checkContinuable(tree, catalog, d)
      const type = (yield* catalog.findType(d.agent)) ??
        { name: d.agent, description: d.description, provider: d.provider, definition: { name: d.agent, description: d.description, systemPrompt: "", override: false, scope: "runtime", source: `runtime:${d.agent}` } } satisfies AgentType
      const activation = yield* tree.activations.begin(handle)
      // Another message started an Activation meanwhile: this one is queued for it.
      if (activation === undefined) return yield* send(handle, message, from, sendOptions)
      const runId = Ids.makeId(new Date(yield* Clock.currentTimeMillis))
      const store = yield* childStore(tree, handle)
      const background = sendOptions?.background === true
      const request: SpawnRequest = { prompt: message, description: d.description, agent: d.agent, background }
      const caller: ParentInfo = from === "user" ? userParent(d, tree) : from
      // A child that kept a worktree goes on working in it.
      const parentInfo: ParentInfo = d.worktree === undefined ? caller : { ...caller, cwd: d.worktree.path }
      // Continuing an archived child restores its transcript (its first append does).
      const { archivedAt: _archived, startedAt: _started, endedAt: _ended, ...rest } = d
      const at = yield* isoNow
      yield* tree.descriptors.note({ ...rest, runId, status: "queued", background, updatedAt: at, queuedAt: at })
      const announce = background ? yield* launcher.announced(parentInfo.handle, d.agent, handle, runId) : undefined
      const spec: RunSpec = { tree, provider, type, handle, runId, request, parent: parentInfo, store, activation, message, continuation, announce }
      if (!background && sendOptions?.detachable === true) {
        const outcome = yield* launcher.activateDetachable(spec)
        return outcome.status === "accepted" ? { _tag: "Accepted", run: outcome } satisfies SendOutcome : { _tag: "Replied", result: outcome } satisfies SendOutcome
      }
      yield* launcher.activate(spec, background)
      if (background) return { _tag: "Accepted", run: { status: "accepted", runId, handle } } satisfies SendOutcome
      return { _tag: "Replied", result: yield* Deferred.await(activation.done) } satisfies SendOutcome
    }).pipe(Effect.withSpan("Subagents.send", { attributes: { handle } }))

  return { send }
}
