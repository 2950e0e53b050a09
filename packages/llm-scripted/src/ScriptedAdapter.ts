import { LlmError, type ModelRegistry } from "@dsh/llm"
import { Effect, Schema } from "effect"
import { readFile } from "node:fs/promises"
import { isAbsolute, resolve } from "node:path"
import { demoScript } from "./DemoScript.ts"
import { Script } from "./Script.ts"
import { make as makeScriptedModel } from "./ScriptedModel.ts"

const configError = (detail: string) =>
  new LlmError.LlmError({ reason: "Configuration", provider: "scripted", detail, retryable: false })

/** Reads and validates a script file (JSON). */
export const loadScript = (path: string): Effect.Effect<Script, LlmError.LlmError> =>
  Effect.gen(function*() {
    const text = yield* Effect.tryPromise({
      try: () => readFile(path, "utf8"),
      catch: (e) => configError(`cannot read script ${path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`)
    })
    const json = yield* Effect.try({
      try: () => JSON.parse(text) as unknown,
      catch: (e) => configError(`script ${path} is not valid JSON: ${e instanceof Error ? e.message : String(e)}`)
    })
    return yield* Schema.decodeUnknownEffect(Script)(json).pipe(
      Effect.mapError((e) => configError(`script ${path} is not a valid script: ${e.message}`))
    )
  })

/**
 * The `scripted` adapter with scripts of your own, resolved by name before files:
 * `makeScriptedAdapter({ scripts: { review: script } })` answers `scripted:review`. `scripted`
 * alone (or `scripted:demo`) is the built-in demo script; anything else is a JSON file path.
 */
export const make = (options: { readonly scripts?: Readonly<Record<string, Script>> | undefined } = {}): ModelRegistry.ModelAdapter => ({
  name: "scripted",
  description: "deterministic offline model driven by a JSON script",
  create: (model, config) => {
    const named = options.scripts?.[model === "" ? "demo" : model]
    if (named !== undefined) return Effect.succeed(makeScriptedModel(named, model === "" ? "demo" : model))
    return model === "" || model === "demo"
      ? Effect.succeed(makeScriptedModel(demoScript, "demo"))
      : loadScript(isAbsolute(model) ? model : resolve(config.cwd ?? process.cwd(), model)).pipe(
        Effect.map((script) => makeScriptedModel(script, model))
      )
  }
})

/** `scripted` (the built-in demo script) or `scripted:<path to a JSON script>`. */
export const ScriptedAdapter: ModelRegistry.ModelAdapter = make()
