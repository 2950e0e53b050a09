/** @dsh/tool-subagent-control: `send_message`, `list_agents` and `wait` over unique child handles. */
export * from "./ControlTools.ts"
