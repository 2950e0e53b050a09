/**
 * The model names this adapter answers to, in a module of their own (`@dsh/llm-anthropic/names`)
 * so a harness can register the adapter lazily and still resolve `sonnet` or `claude-*` before
 * the adapter itself is loaded.
 */

/**
 * The aliases Claude Code's agent files use, shipped with this adapter (a registry's own
 * aliases, e.g. `[models]` in dsh's config, override them).
 */
export const ANTHROPIC_ALIASES: Readonly<Record<string, string>> = {
  sonnet: "anthropic:claude-sonnet-4-5",
  opus: "anthropic:claude-opus-4-5",
  haiku: "anthropic:claude-haiku-4-5"
}

/** The bare model ids this adapter serves without `anthropic:`: `claude-*`. */
export const ANTHROPIC_MODEL_IDS = { match: /^claude-/, describe: "claude-*" }
