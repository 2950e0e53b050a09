import { Schema } from "effect"

/**
 * Why a delegation was refused or a child could not be reached. The `subagent` tool turns
 * these into results the model can read; none of them is a crash.
 */
export class SubagentError extends Schema.TaggedError<SubagentError>()("SubagentError", {
  reason: Schema.Literals([
    "UnknownType",
    "NotAllowed",
    "DepthLimit",
    "ChildLimit",
    "UnknownHandle",
    "NotOwner",
    "Unsupported",
    "InvalidRequest",
    /** The child's saved continuation is missing, of another provider or version, or does not decode. */
    "InvalidContinuation",
    /** `isolation: "worktree"` could not be had: not a git repository, or the worktree could not be made. */
    "Isolation"
  ]),
  message: Schema.String
}) {}
