/** @dsh/tool-subagent-report: the child-scoped `report` return channel of continuable children. */
export * from "./ReportTool.ts"
