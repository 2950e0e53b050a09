/**
 * @dsh/harness: the harness kit. Describe a harness (its agents, backends and tools) and get
 * the `AgentHost` as a layer: sessions, the main agent's turns in the wake loop of background
 * delegation, children continued and stopped by handle, across processes. `dsh run`,
 * `dsh acp` and `dsh sdk` are all this host.
 */
export * as AgentContext from "./AgentContext.ts"
export * as AgentListing from "./AgentListing.ts"
export * as CatalogRequest from "./CatalogRequest.ts"
export * as ChildSummary from "./ChildSummary.ts"
export * as ConfigFile from "./ConfigFile.ts"
export * as FileAgents from "./FileAgents.ts"
export * as Harness from "./Harness.ts"
export * as HarnessConfig from "./HarnessConfig.ts"
export * as HarnessOptions from "./HarnessOptions.ts"
export * as HostErrors from "./HostErrors.ts"
export * as ModelsConfig from "./ModelsConfig.ts"
export * as ProjectConfig from "./ProjectConfig.ts"
export * as ProviderPackages from "./ProviderPackages.ts"
export * as ProvidersConfig from "./ProvidersConfig.ts"
export * as RunOutput from "./RunOutput.ts"
export * as SessionChoice from "./SessionChoice.ts"
export * as SessionHost from "./SessionHost.ts"
export * as SessionPermissions from "./SessionPermissions.ts"
export * as TerminalAsker from "./TerminalAsker.ts"
export * as TerminalKeys from "./TerminalKeys.ts"
