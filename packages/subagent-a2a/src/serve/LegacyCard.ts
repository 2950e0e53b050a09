import type { AgentCard } from "@a2a-js/sdk"
import { isLegacyJsonRpcMethod } from "@a2a-js/sdk/compat/v0_3"

/**
 * The v0.3 shape of dsh's card, for clients of the v0.3 protocol (Google ADK's
 * `RemoteA2AAgent`, any `@a2a-js/sdk` 0.3 client): `url` + `preferredTransport` instead of
 * `supportedInterfaces`, a card-level `protocolVersion`, OpenAPI-shaped security schemes. The
 * SDK's own translator is internal to its express handlers, which this server does not use.
 */
export const legacyAgentCard = (card: AgentCard, url: string, bearer: boolean): Record<string, unknown> => ({
  protocolVersion: "0.3.0",
  name: card.name,
  description: card.description,
  version: card.version,
  url,
  preferredTransport: "JSONRPC",
  additionalInterfaces: [{ url, transport: "JSONRPC" }],
  capabilities: {
    streaming: card.capabilities?.streaming === true,
    pushNotifications: false,
    stateTransitionHistory: false,
    extensions: (card.capabilities?.extensions ?? []).map((e) => ({ uri: e.uri, description: e.description, required: e.required }))
  },
  defaultInputModes: [...card.defaultInputModes],
  defaultOutputModes: [...card.defaultOutputModes],
  skills: card.skills.map((s) => ({ id: s.id, name: s.name, description: s.description, tags: [...s.tags] })),
  ...(bearer ? { securitySchemes: { bearer: { type: "http", scheme: "bearer" } }, security: [{ bearer: [] }] } : {})
})

/** A request of the v0.3 protocol: its `A2A-Version` header names 0.x, or (no header) its method is a v0.3 one. */
export const isLegacyRequest = (version: string | undefined, method: unknown): boolean =>
  version !== undefined && version.trim() !== "" ? /^0\./.test(version.trim()) : isLegacyJsonRpcMethod(method)
