import type { AgentEvent } from "@dsh/core"
import { ModelRegistry } from "@dsh/llm"
import { AnthropicAdapter } from "@dsh/llm-anthropic"
import { OpenAIAdapter } from "@dsh/llm-openai"
import { ScriptedAdapter } from "@dsh/llm-scripted"
import { detachChild } from "@dsh/subagent"
import { Duration, Effect, Exit, Layer, ManagedRuntime } from "effect"
import { KitCore, kitCoreLayer, type KitCoreShape } from "./internal/core.ts"
import { delegate as runDelegate } from "./internal/delegate.ts"
import { storeLayer } from "./internal/store.ts"
import type { CreateSubagentsOptions } from "./Options.ts"
import type { InferOutput, StandardSchemaV1 } from "./ResultSchema.ts"
import {
  type Announcement,
  type ChildEvent,
  type ChildEventName,
  type ChildInfo,
  type ChildResult,
  type ChildRun,
  type PromptResult,
  type Queued,
  toAnnouncement,
  toChildInfo,
  toChildResult,
  type TypedChildResult
} from "./Results.ts"
import { fromCause } from "./internal/errors.ts"
import { SubagentsError } from "./SubagentsError.ts"
import { makeKitTools, type KitTools } from "./Tools.ts"

/** What every call may take: an `AbortSignal` that stops it (and the children it started). */
export interface CallOptions {
  readonly signal?: AbortSignal | undefined
}

interface DelegateBase extends CallOptions {
  /** The agent's name (a key of `agents`, or `fork`). */
  readonly agent: string
  readonly prompt: string
  readonly description?: string | undefined
  readonly timeoutSeconds?: number | undefined
}

/** The kit: dsh's subagents behind Promises. One per app; `close()` it (or `await using`). */
export interface Subagents extends AsyncDisposable {
  /** The lead's own loop on `text`: it may delegate to every agent; resolves when it and its background children are done. */
  prompt(text: string, options?: CallOptions & { readonly sessionId?: string | undefined }): Promise<PromptResult>
  /** Runs one child to its end; with `schema` (any Standard Schema) its reported JSON, parsed and typed, is `value`. */
  delegate<S extends StandardSchemaV1>(request: DelegateBase & { readonly schema: S; readonly jsonSchema?: Readonly<Record<string, unknown>> | undefined; readonly background?: false | undefined }): Promise<TypedChildResult<InferOutput<S>>>
  delegate(request: DelegateBase & { readonly background: true }): Promise<ChildRun>
  /** A foreground child that `detach` may move to the background: then the call resolves at once to its `ChildRun`. */
  delegate(request: DelegateBase & { readonly background?: false | undefined; readonly detachable: true }): Promise<ChildResult | ChildRun>
  delegate(request: DelegateBase & { readonly background?: false | undefined }): Promise<ChildResult>
  /** Continues a child (a finished one answers; a running one reads it at its next step). */
  send(handle: string | ChildRun | ChildResult, message: string, options?: CallOptions): Promise<ChildResult | Queued>
  /** Waits for background children (default: all of the kit's) up to `timeoutMs` (default 10 minutes); those still running are listed as they are. */
  wait(handles?: ReadonlyArray<string | ChildRun> | undefined, options?: CallOptions & { readonly timeoutMs?: number | undefined }): Promise<ReadonlyArray<ChildResult | ChildInfo>>
  /** Stops a child and its descendants, or `all`; resolves to the handles stopped. */
  stop(handle: string | ChildRun | "all"): Promise<ReadonlyArray<string>>
  /**
   * Moves a running foreground child (`all`: every one of the lead's) to the background: the
   * call waiting for it (the lead's `subagent` tool call, a `delegate` with `detachable`)
   * returns `{status: "accepted", handle, runId}` at once; the outcome is announced later,
   * once (`announcements`, `wait`, or the lead's next step). Resolves to the runs detached.
   */
  detach(handle: string | "all"): Promise<ReadonlyArray<ChildRun>>
  /** Every child of the kit's session, with its status. */
  children(): Promise<ReadonlyArray<ChildInfo>>
  /** Hears every child's live events, and the lead's as handle `main` (`*` for all); returns the function that stops listening. */
  on<N extends ChildEventName>(event: N, listener: (event: N extends "*" ? ChildEvent : Extract<AgentEvent, { readonly type: N }> & { readonly handle: string }) => void): () => void
  /** Background outcomes of `parent` (default `main`, the kit's own children) not handed out yet; each comes once. */
  announcements(parent?: string): Promise<ReadonlyArray<Announcement>>
  /** Plain tool definitions and AI SDK tools that delegate through this kit, for other agent loops. */
  readonly tools: KitTools
  /** Stops every child and closes the store. Later calls fail with `Closed`. */
  close(): Promise<void>
}

const handleOf = (h: string | { readonly handle: string }) => (typeof h === "string" ? h : h.handle)

/**
 * Creates the kit: sessions in `store`, children on `backends`, one Effect runtime inside.
 * Rejects with a `SubagentsError` when the options cannot work (a bad model, store or agent name).
 */
export const createSubagents = async (options: CreateSubagentsOptions): Promise<Subagents> => {
  // Listeners live on this kit: no module-global registry.
  const listeners = new Map<ChildEventName, Set<(event: ChildEvent) => void>>()
  const emit = (handle: string, event: AgentEvent) => {
    for (const name of [event.type, "*"] as const) {
      for (const listen of listeners.get(name) ?? []) {
        // A listener's bug must not break the child that produced the event.
        try {
          listen({ ...event, handle })
        } catch {
          // ignored on purpose
        }
      }
    }
  }
  const layer = kitCoreLayer(options, emit).pipe(
    Layer.provide(Layer.mergeAll(storeLayer(options.store), ModelRegistry.layerWith([ScriptedAdapter, OpenAIAdapter, AnthropicAdapter])))
  )
  const runtime = ManagedRuntime.make(layer)
  let closed = false

  const run = async <A>(effect: Effect.Effect<A, unknown, KitCore>, signal?: AbortSignal): Promise<A> => {
    if (closed) throw new SubagentsError("Closed", "this kit was closed (its children were stopped); create another with createSubagents()")
    const exit = await runtime.runPromiseExit(effect, signal === undefined ? undefined : { signal })
    if (Exit.isSuccess(exit)) return exit.value
    throw fromCause(exit.cause)
  }
  const withCore = <A>(f: (core: KitCoreShape) => Effect.Effect<A, unknown>) =>
    Effect.gen(function*() {
      return yield* f(yield* KitCore)
    })

  // Fail now, not at the first call, when the options cannot work.
  const agentTypes = await run(withCore((core) => Effect.succeed(core.agentTypes))).catch(async (e: unknown) => {
    await runtime.dispose()
    throw e
  })

  const calls: Omit<Subagents, "tools" | typeof Symbol.asyncDispose> = {
    prompt: (text, o) =>
      run(withCore((core) =>
        Effect.gen(function*() {
          const rt = yield* core.runtime(o?.sessionId)
          const result = yield* core.prompt(rt, text)
          return {
            text: result.result,
            status: result.status,
            usage: result.usage,
            children: rt.tree.descriptors.all().map(toChildInfo),
            sessionId: rt.id,
            ...(result.error === undefined ? {} : { error: result.error })
          } satisfies PromptResult
        })
      ), o?.signal),
    delegate: ((request: Parameters<typeof runDelegate>[1] & CallOptions) => run(withCore((core) => runDelegate(core, request)), request.signal)) as Subagents["delegate"],
    send: (handle, message, o) =>
      run(withCore((core) =>
        Effect.gen(function*() {
          const rt = yield* core.runtime()
          const outcome = yield* core.governed(rt.context.subagents.send(handleOf(handle), message, "user"))
          if (outcome._tag === "Replied") return toChildResult(outcome.result)
          return { handle: handleOf(handle), status: "queued" } satisfies Queued
        })
      ), o?.signal),
    wait: (handles, o) =>
      run(withCore((core) =>
        Effect.gen(function*() {
          const rt = yield* core.runtime()
          const settled = yield* rt.context.subagents.wait("main", handles?.map(handleOf), Duration.millis(o?.timeoutMs ?? 600_000))
          return settled.map((r) => ("output" in r ? toChildResult(r) : toChildInfo(r)))
        })
      ), o?.signal),
    stop: (handle) =>
      run(withCore((core) => Effect.flatMap(core.runtime(), (rt) => rt.context.subagents.stop(handle === "all" ? "all" : handleOf(handle), "main")))),
    detach: (handle) =>
      run(withCore((core) =>
        Effect.flatMap(core.runtime(), (rt) => detachChild(rt.tree, handle, "main")).pipe(
          Effect.map((runs) => runs.map((r): ChildRun => ({ handle: r.handle, status: "accepted", runId: r.runId })))
        )
      )),
    children: () => run(withCore((core) => Effect.map(core.runtime(), (rt) => rt.tree.descriptors.all().map(toChildInfo)))),
    on: (event, listener) => {
      const set = listeners.get(event) ?? new Set()
      listeners.set(event, set)
      const l = listener as (event: ChildEvent) => void
      set.add(l)
      return () => void set.delete(l)
    },
    announcements: (parent = "main") =>
      run(withCore((core) =>
        Effect.gen(function*() {
          const rt = yield* core.runtime()
          const taken = yield* rt.tree.announcements.take(parent)
          // Handed to the caller: marked delivered, never announced to the lead as well.
          yield* rt.tree.announcements.ack(parent)
          return taken.map(toAnnouncement)
        })
      )),
    close: async () => {
      if (closed) return
      await run(withCore((core) => core.stopAll)).catch(() => undefined)
      closed = true
      await runtime.dispose()
    }
  }
  return { ...calls, tools: makeKitTools(calls, agentTypes), [Symbol.asyncDispose]: calls.close }
}
