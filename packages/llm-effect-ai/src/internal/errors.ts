import { LlmError } from "@dsh/llm"
import { AiError } from "effect/ai"

const statusOf = (reason: AiError.AiErrorReason): number | undefined =>
  "http" in reason ? reason.http?.response?.status : undefined

const llmReasonOf = (reason: AiError.AiErrorReason): LlmError.LlmErrorReason => {
  switch (reason._tag) {
    case "RateLimitError":
    case "QuotaExhaustedError":
      return "RateLimited"
    case "AuthenticationError":
      return "Authentication"
    case "InvalidRequestError":
      return LlmError.isContextOverflowText(reason.message) ? "ContextOverflow" : "InvalidRequest"
    case "ContentPolicyError":
    case "InvalidUserInputError":
      return "InvalidRequest"
    case "InternalProviderError":
      return "ServerError"
    case "NetworkError":
      return "Network"
    case "UnsupportedSchemaError":
    case "ToolConfigurationError":
    case "ToolkitRequiredError":
      return "Configuration"
    case "InvalidResponseError":
    case "InvalidOutputError":
    case "StructuredOutputError":
    case "UnknownError":
    case "ToolNotFoundError":
    case "ToolParameterValidationError":
    case "InvalidToolResultError":
    case "ToolResultEncodingError":
      return "BadResponse"
  }
}

/**
 * An effect/ai failure as dsh sees it. Retryability is effect/ai's own verdict (a quota
 * error is `RateLimited` but not retryable), so dsh's retry helpers agree with the provider.
 */
export const toLlmError = (provider: string, error: AiError.AiError): LlmError.LlmError => {
  const status = statusOf(error.reason)
  return new LlmError.LlmError({
    reason: llmReasonOf(error.reason),
    provider,
    detail: error.reason.message,
    retryable: error.isRetryable,
    ...(status === undefined ? {} : { status })
  })
}

const aiReasonOf = (error: LlmError.LlmError): AiError.AiErrorReason => {
  const description = error.detail
  switch (error.reason) {
    case "Authentication":
      return new AiError.AuthenticationError({ kind: "Unknown", description })
    case "RateLimited":
      return new AiError.RateLimitError({})
    case "ContextOverflow":
    case "InvalidRequest":
      return new AiError.InvalidRequestError({ description })
    case "ServerError":
      return new AiError.InternalProviderError({ description })
    case "Network":
      return new AiError.NetworkError({ reason: "TransportError", method: "POST", url: error.provider, description })
    case "BadResponse":
      return new AiError.InvalidResponseError({ description })
    case "Configuration":
      return new AiError.InvalidUserInputError({ description })
  }
}

/** A dsh failure as effect/ai sees it; `module` names the dsh provider, for tracing. */
export const toAiError = (method: string, error: LlmError.LlmError): AiError.AiError =>
  AiError.make({ module: `dsh/${error.provider}`, method, reason: aiReasonOf(error) })
