/** @dsh/tool-subagent: the model-facing `subagent` delegation tool, over `ctx.subagents`. */
export * from "./SubagentTool.ts"
export * from "./CreateSubagentTools.ts"
