/**
 * dsh keeps tool-call arguments as the JSON text the model wrote (a malformed call can then be
 * reported back to it); effect/ai carries the parsed value. Text that is not JSON crosses as a
 * string, for the receiving side to reject with its own error.
 */
export const parseArguments = (text: string): unknown => {
  if (text.trim() === "") return {}
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** The inverse of `parseArguments`: a string is already the text. */
export const argumentsText = (params: unknown): string =>
  typeof params === "string" ? params : JSON.stringify(params ?? {})
