import { Schema } from "effect"

/** Bad usage or bad input: one line on stderr, exit code 2, nothing written. */
export class UsageError extends Schema.TaggedError<UsageError>()("UsageError", {
  message: Schema.String
}) {}

/** A run that started and failed: exit code 1. */
export class RunFailed extends Schema.TaggedError<RunFailed>()("RunFailed", {
  message: Schema.String
}) {}

const INPUT_REASONS = new Set(["Configuration", "NotFound", "InvalidId", "DuplicateName", "InvalidFile", "UnknownAgent", "Exists", "UnknownHandle", "NotOwner"])

/** Maps any failure to the CLI contract: the exit code and the one line for stderr. */
export const exitFor = (error: unknown): { readonly code: 1 | 2; readonly line: string } => {
  const message = error instanceof Error ? error.message : String(error)
  const line = message.split("\n")[0] ?? "unknown error"
  if (error instanceof UsageError) return { code: 2, line }
  if (error instanceof RunFailed) return { code: 1, line }
  const tagged = error as { _tag?: string; reason?: string }
  if (tagged._tag === "HostError") return { code: tagged.reason === "Failed" ? 1 : 2, line }
  if (tagged._tag === "RegistryError" || tagged._tag === "AgentDefinitionError") return { code: 2, line }
  if (tagged.reason !== undefined && INPUT_REASONS.has(tagged.reason)) return { code: 2, line }
  return { code: 1, line }
}
