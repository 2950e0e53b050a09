import { Schema } from "effect"

/**
 * Why agent definitions could not be used. `InvalidFile`/`NotFound` come from an explicit
 * `--agent-file` (the CLI maps them to exit code 2); `UnknownAgent` lists `available`;
 * `Builtin` means the package's own agent files are missing or broken (an installation fault);
 * `Io` is a filesystem failure such as an unwritable trust store.
 */
export class AgentDefinitionError extends Schema.TaggedError<AgentDefinitionError>()("AgentDefinitionError", {
  reason: Schema.Literals(["InvalidFile", "NotFound", "UnknownAgent", "Builtin", "Io"]),
  detail: Schema.String,
  path: Schema.optional(Schema.String),
  available: Schema.optional(Schema.Array(Schema.String))
}) {
  override get message(): string {
    const where = this.path === undefined ? "" : `${this.path}: `
    const available = this.available === undefined
      ? ""
      : `; available: ${this.available.join(", ") || "(none)"}`
    return `${where}${this.detail}${available}`
  }
}
