import { Effect } from "effect"
import type { ModelAdapter } from "./ModelRegistry.ts"

/**
 * What `lazyAdapter` needs: everything a registry reads of an adapter without building a model
 * (its name, description and any other field), and how to import the real adapter.
 */
export type LazyAdapterOptions = Omit<ModelAdapter, "create"> & {
  /** Imports the real adapter, e.g. `() => import("@dsh/llm-openai").then((m) => m.OpenAIAdapter)`. */
  readonly load: () => Promise<ModelAdapter>
}

/**
 * An adapter whose module is imported the first time a model is built from it, so a registry
 * can offer every provider while a process that uses one of them (or none) never loads the
 * others: start-up pays only for what the first prompt needs. The import runs once; a failed
 * import is a defect (the installation is broken, not the spec).
 */
export const lazyAdapter = ({ load, ...eager }: LazyAdapterOptions): ModelAdapter => {
  let loading: Promise<ModelAdapter> | undefined
  return {
    ...eager,
    create: (model, config) =>
      Effect.promise(() => (loading ??= load())).pipe(Effect.flatMap((adapter) => adapter.create(model, config)))
  }
}
