/**
 * @dsh/harness: the harness kit. Describe a harness (its agents, backends and tools) and get
 * the `AgentHost` as a layer: sessions, the main agent's turns in the wake loop of background
 * delegation, children continued and stopped by handle, across processes. `dsh run`,
 * `dsh acp` and `dsh sdk` are all this host.
 */
export * from "./AgentContext.ts"
export * from "./AgentListing.ts"
export * from "./CatalogRequest.ts"
export * from "./ChildSummary.ts"
export * from "./FileAgents.ts"
export * from "./Harness.ts"
export * from "./HarnessConfig.ts"
export * from "./HarnessOptions.ts"
export * from "./HostErrors.ts"
export * from "./SessionPermissions.ts"
export * from "./TerminalAsker.ts"
export * from "./ModelsConfig.ts"
export * from "./ProvidersConfig.ts"
export * from "./SessionHost.ts"
export * from "./TerminalKeys.ts"
export * from "./ProviderPackages.ts"
export * from "./ConfigFile.ts"
export * from "./ProjectConfig.ts"
export * from "./RunOutput.ts"
export * from "./SessionChoice.ts"
