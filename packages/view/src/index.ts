/**
 * @dsh/view: the operator's view of a dsh session. `makeAgentTree` follows a session's agents
 * from their events (live from `AgentHost.prompt`, or persisted) and `treeRows`/`renderTreeLines`
 * draw it; `followSession` watches a session another process runs; `loadSessionReport` and
 * `renderReportHtml` make a self-contained HTML report of a session.
 */
export * from "./AgentTree.ts"
export * from "./LiveTree.ts"
export * from "./PruneText.ts"
export * from "./ReportHtml.ts"
export * from "./SessionFollower.ts"
export * from "./SessionReport.ts"
export * from "./TreeText.ts"
