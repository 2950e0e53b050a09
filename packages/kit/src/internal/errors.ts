import { Cause } from "effect"
import { isSubagentsError, SubagentsError, type SubagentsErrorReason } from "../SubagentsError.ts"

const messageOf = (u: unknown): string =>
  typeof u === "object" && u !== null && "message" in u && typeof u.message === "string" ? u.message : String(u)

/** A tagged dsh error's reason, mapped to the kit's (the only mapping: `delegate` uses it too). */
export const reasonOf = (u: unknown): SubagentsErrorReason => {
  const tagged = u as { readonly _tag?: unknown; readonly reason?: unknown }
  if (tagged._tag === "SubagentError" && tagged.reason === "UnknownType") return "UnknownAgent"
  if (tagged._tag === "SubagentError" && tagged.reason === "UnknownHandle") return "NotFound"
  if (tagged._tag === "SessionError" && tagged.reason === "NotFound") return "NotFound"
  return "Failed"
}

/** The `SubagentsError` a failed Cause stands for: its first typed failure, an interruption, or a defect. */
export const fromCause = (cause: Cause.Cause<unknown>): SubagentsError => {
  const failure = cause.reasons.find(Cause.isFailReason)
  if (failure !== undefined) {
    const e = failure.error
    return isSubagentsError(e) ? e : new SubagentsError(reasonOf(e), messageOf(e), { cause: e })
  }
  const defect = cause.reasons.find(Cause.isDieReason)
  if (defect !== undefined) return isSubagentsError(defect.defect) ? defect.defect : new SubagentsError("Failed", messageOf(defect.defect), { cause: defect.defect })
  return new SubagentsError("Aborted", "the call was aborted")
}
