import type { Events } from "@dsh/core"
import { ModelRegistry } from "@dsh/llm"
import { Detach } from "@dsh/subagent"
import { Duration, Effect, Exit, Layer, ManagedRuntime } from "effect"
import * as DshModels from "./DshModels.ts"
import { KitCore, kitCoreLayer, type KitCoreShape } from "./internal/core.ts"
import { delegate as runDelegate } from "./internal/delegate.ts"
import { storeLayer } from "./internal/store.ts"
import type { CreateSubagentsOptions } from "./Options.ts"
import {
  type ChildEvent,
  type ChildEventName,
  type ChildRun,
  type PromptResult,
  type Queued,
  toAnnouncement,
  toChildInfo,
  toChildResult
} from "./Results.ts"
import { fromCause } from "./internal/errors.ts"
import { SubagentsError } from "./SubagentsError.ts"
import type { CallOptions, Subagents } from "./Subagents.ts"
import { makeKitTools } from "./Tools.ts"

const handleOf = (h: string | { readonly handle: string }) => (typeof h === "string" ? h : h.handle)

/**
 * Creates the kit: sessions in `store`, children on `backends`, one Effect runtime inside.
 * Rejects with a `SubagentsError` when the options cannot work (a bad model, store or agent name).
 */
export const createSubagents = async (options: CreateSubagentsOptions): Promise<Subagents> => {
  // Listeners live on this kit: no module-global registry.
  const listeners = new Map<ChildEventName, Set<(event: ChildEvent) => void>>()
  const emit = (handle: string, event: Events.AgentEvent) => {
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
    Layer.provide(Layer.mergeAll(storeLayer(options.store), ModelRegistry.layerWith(DshModels.adapters)))
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
        Effect.flatMap(core.runtime(), (rt) => Detach.detachChild(rt.tree, handle, "main")).pipe(
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
