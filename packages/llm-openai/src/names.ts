/**
 * The model names this adapter answers to, in a module of their own (`@dsh/llm-openai/names`)
 * so a harness can register the adapter lazily and still resolve `gpt-*` before the adapter
 * itself is loaded.
 */

/**
 * The bare model ids this adapter serves without `openai:` (as agent files written for other
 * harnesses name them): `gpt-*`, `chatgpt-*`, and the reasoning models `o1`, `o3`, `o4-*`
 * (with their suffixes, e.g. `o3-mini`, `o4-mini`).
 */
export const OPENAI_MODEL_IDS = { match: /^(?:gpt-|chatgpt-|o[134](?:$|-))/, describe: "gpt-*, chatgpt-*, o1, o3, o4-*" }
