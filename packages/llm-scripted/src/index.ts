/**
 * @dsh/llm-scripted: a deterministic model for offline runs, demos and tests. It is the
 * default model when nothing else is configured; `ScriptedAdapter` registers as `scripted`.
 */
export * from "./DemoScript.ts"
export * from "./Script.ts"
export * from "./ScriptedAdapter.ts"
export * from "./ScriptedModel.ts"
