/**
 * @dsh/kit: dsh's subagents behind a Promise API. `createSubagents({ model, agents })` gives a
 * lead that delegates (`prompt`), direct delegation with typed results from any Standard
 * Schema (`delegate`), `send`, `wait`, `stop`, live child events, background announcements,
 * and the delegation tools for other agent loops (`tools.definitions()`, `tools.aiSdk()`).
 * Effect runs inside (one runtime per kit); every failure is a `SubagentsError`.
 */
export * from "./Kit.ts"
export * from "./Options.ts"
export * from "./Results.ts"
export * from "./ResultSchema.ts"
export * from "./Subagents.ts"
export * from "./SubagentsError.ts"
export * from "./ToolDefinition.ts"
export * from "./Tools.ts"
