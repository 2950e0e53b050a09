/**
 * @dsh/llm-scripted: a deterministic model for offline runs, demos and tests. It is the
 * default model when nothing else is configured; `ScriptedAdapter` registers as `scripted`.
 */
export * as DemoScript from "./DemoScript.ts"
export * as Script from "./Script.ts"
export * as ScriptedAdapter from "./ScriptedAdapter.ts"
export * as ScriptedModel from "./ScriptedModel.ts"
