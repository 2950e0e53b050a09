import { Effect, Schema } from "effect"

/**
 * The version of the provider contract (`SubagentProvider`, and `OutOfProcessBackend` over it)
 * this build of `@dsh/subagent` implements. A provider declares the version it was written
 * against, so a third party's backend is refused with a clear error, not misread, when the
 * contract changes.
 */
export const SPECIFICATION_VERSION = "v1" as const

/** The contract versions this build can run. */
export const SUPPORTED_SPECIFICATION_VERSIONS: ReadonlyArray<string> = [SPECIFICATION_VERSION]

/** A provider written against a contract version this build does not implement. */
export class ProviderVersionError extends Schema.TaggedError<ProviderVersionError>()("ProviderVersionError", {
  provider: Schema.String,
  specificationVersion: Schema.String,
  supported: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return `subagent provider "${this.provider}" implements specification ${this.specificationVersion}; ` +
      `this @dsh/subagent supports ${this.supported.join(", ")}`
  }
}

/** Passes a provider this build can run; refuses any other before it is registered. */
export const checkSpecification = <P extends { readonly name: string; readonly specificationVersion: string }>(
  provider: P
): Effect.Effect<P, ProviderVersionError> =>
  SUPPORTED_SPECIFICATION_VERSIONS.includes(provider.specificationVersion)
    ? Effect.succeed(provider)
    : Effect.fail(
      new ProviderVersionError({
        provider: provider.name,
        // A JavaScript caller may pass anything, or nothing.
        specificationVersion: String(provider.specificationVersion),
        supported: [...SUPPORTED_SPECIFICATION_VERSIONS]
      })
    )
