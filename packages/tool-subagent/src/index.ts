/**
 * @dsh/tool-subagent: every model-facing subagent tool, over `ctx.subagents` — `subagent`, `swarm`
 * and `create_subagent` (delegation), `send_message`, `list_agents`, `agents_list`, `wait` and
 * `sessions_history` (control over unique child handles), and the child-scoped `report` return
 * channel of continuable children.
 */
export * from "./SubagentTool.ts"
export * from "./SwarmTool.ts"
export * from "./CreateSubagentTools.ts"
export * from "./DelegationPermission.ts"
export * from "./ControlTools.ts"
export * from "./ReportTool.ts"
