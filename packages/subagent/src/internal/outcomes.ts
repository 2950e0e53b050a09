import type { SubagentResult } from "../Records.ts"
import type { SubagentError } from "../SubagentError.ts"
import type { AcceptedRun } from "../Vocabulary.ts"

/** One request of a batch (`spawnAll`), in order: its result, its accepted background run, or why it did not start. */
export type BatchEntry =
  | { readonly _tag: "Settled"; readonly result: SubagentResult }
  | { readonly _tag: "Accepted"; readonly run: AcceptedRun }
  | { readonly _tag: "Refused"; readonly error: SubagentError }

/** What a message to a child led to: queued for its running Activation, or a reply. */
export type SendOutcome =
  | { readonly _tag: "Queued"; readonly handle: string }
  | { readonly _tag: "Replied"; readonly result: SubagentResult }
  | { readonly _tag: "Accepted"; readonly run: AcceptedRun }
