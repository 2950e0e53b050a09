/** @dsh/tool-subagent: the model-facing `subagent` and `swarm` delegation tools, over `ctx.subagents`. */
export * from "./SubagentTool.ts"
export * from "./SwarmTool.ts"
export * from "./CreateSubagentTools.ts"
export * from "./DelegationPermission.ts"
