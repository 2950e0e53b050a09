/**
 * @dsh/view: the operator's view of a dsh session. `AgentTree.make` follows a session's agents
 * from their events (live from `AgentHost.prompt`, or persisted) and `TreeText` draws it;
 * `SessionFollower.followSession` follows a session another process runs and
 * `SessionWatch.watchSession` shows it; `SessionReport` and `ReportHtml` make a self-contained
 * HTML report of a session, `ReportFile` writes it atomically, owner-only.
 */
export * as AgentTree from "./AgentTree.ts"
export * as LiveTree from "./LiveTree.ts"
export * as PruneText from "./PruneText.ts"
export * as ReportFile from "./ReportFile.ts"
export * as ReportHtml from "./ReportHtml.ts"
export * as SessionFollower from "./SessionFollower.ts"
export * as SessionReport from "./SessionReport.ts"
export * as SessionWatch from "./SessionWatch.ts"
export * as TreeText from "./TreeText.ts"
