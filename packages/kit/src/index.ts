/**
 * @dsh/kit: dsh's subagents behind a Promise API. `createSubagents({ model, agents })` gives a
 * lead that delegates (`prompt`), direct delegation with typed results from any Standard
 * Schema (`delegate`), `send`, `wait`, `stop`, live child events, background announcements,
 * and the delegation tools for other agent loops (`tools.definitions()`, `tools.aiSdk()`).
 * Effect runs inside (one runtime per kit); every failure is a `SubagentsError`.
 */
export * as Kit from "./Kit.ts"
export * as Options from "./Options.ts"
export * as Results from "./Results.ts"
export * as ResultSchema from "./ResultSchema.ts"
export * as Subagents from "./Subagents.ts"
export * as SubagentsError from "./SubagentsError.ts"
export * as ToolDefinition from "./ToolDefinition.ts"
export * as Tools from "./Tools.ts"
export { createSubagents } from "./Kit.ts"
