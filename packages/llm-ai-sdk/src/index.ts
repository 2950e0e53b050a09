/**
 * @dsh/llm-ai-sdk: any AI SDK language model (V2, V3, V4) as a dsh model with `fromAiSdk`,
 * and any AI SDK provider as a named model adapter with `aiSdkAdapter`.
 */
export * as AiSdkAdapter from "./AiSdkAdapter.ts"
export * as FromAiSdk from "./FromAiSdk.ts"
