import { Schema } from "effect"

/** A setting that cannot be used, with the key and what is allowed. */
export class ConfigError extends Schema.TaggedError<ConfigError>()("ConfigError", {
  key: Schema.String,
  message: Schema.String
}) {}

/** The error for `key` of the config file `file`: `<file>: <key> <what>`. */
export const configError = (file: string, key: string, what: string): ConfigError =>
  new ConfigError({ key, message: `${file}: ${key} ${what}` })
