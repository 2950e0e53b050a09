import type { Messages } from "@dsh/core"

/**
 * effect/ai keeps a reasoning part's extras in a per-provider metadata record. dsh's own
 * fields (`provider`, `signature`, `redactedData`) travel under this key so that a part
 * that crosses the bridge and comes back is the part that left.
 */
export const DSH_METADATA_KEY = "dsh"

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }
type Metadata = Record<string, Json>

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** A dsh reasoning part's extras as effect/ai metadata (prompt `options` or response `metadata`). */
export const reasoningMetadata = (part: Messages.ReasoningPart): Metadata => {
  const own: Record<string, Json> = {}
  if (part.provider !== undefined) own.provider = part.provider
  if (part.signature !== undefined) own.signature = part.signature
  if (part.redactedData !== undefined) own.redactedData = part.redactedData
  return {
    ...(part.providerMetadata as Metadata | undefined),
    ...(Object.keys(own).length > 0 ? { [DSH_METADATA_KEY]: own } : {})
  }
}

const stringAt = (record: Readonly<Record<string, unknown>>, key: string): string | undefined =>
  typeof record[key] === "string" ? record[key] : undefined

/**
 * effect/ai reasoning back to dsh. Without dsh's own key, `provider` is the adapter that
 * streamed it and a `signature` found in one provider's metadata (Anthropic's shape) is lifted.
 */
export const reasoningPart = (text: string, metadata: unknown, fallbackProvider: string): Messages.ReasoningPart => {
  const record = isRecord(metadata) ? metadata : {}
  const { [DSH_METADATA_KEY]: ownRaw, ...rest } = record
  const own = isRecord(ownRaw) ? ownRaw : undefined
  const lifted = own === undefined
    ? Object.values(rest).map((v) => (isRecord(v) ? stringAt(v, "signature") : undefined)).find((s) => s !== undefined)
    : undefined
  const provider = own === undefined ? fallbackProvider : stringAt(own, "provider")
  const signature = own === undefined ? lifted : stringAt(own, "signature")
  const redactedData = own === undefined ? undefined : stringAt(own, "redactedData")
  return {
    type: "reasoning",
    text,
    ...(provider === undefined ? {} : { provider }),
    ...(signature === undefined ? {} : { signature }),
    ...(redactedData === undefined ? {} : { redactedData }),
    ...(Object.keys(rest).length > 0 ? { providerMetadata: rest } : {})
  }
}
