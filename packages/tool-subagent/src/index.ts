/**
 * @dsh/tool-subagent: every model-facing subagent tool, over `ctx.subagents` — `subagent`, `swarm`
 * and `create_subagent` (delegation), `send_message`, `list_agents`, `agents_list`, `wait` and
 * `sessions_history` (control over unique child handles), and the child-scoped `report` return
 * channel of continuable children.
 */
export * as ControlTools from "./ControlTools.ts"
export * as CreateSubagentTools from "./CreateSubagentTools.ts"
export * as DelegationPermission from "./DelegationPermission.ts"
export * as ReportTool from "./ReportTool.ts"
export * as SubagentTool from "./SubagentTool.ts"
export * as SwarmTool from "./SwarmTool.ts"
