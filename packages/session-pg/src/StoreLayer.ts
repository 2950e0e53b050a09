/**
 * One place where a harness turns its store setting into the `SessionStore` layer: a directory
 * is the file store (the embedded default), a `postgres://` URL is `PgSessionStore`.
 *
 * @since 0.1.0
 */
import { FileSessionStore, SessionError, SessionStore, StoreSpec } from "@dsh/session"
import { Effect, Layer, Result } from "effect"
import * as PgSessionStore from "./PgSessionStore.ts"

/**
 * The store a setting names (see `parseStoreSpec` of `@dsh/session`; relative directories are
 * resolved against `cwd`). A setting that is neither fails the layer with a one-line `SessionError`.
 *
 * @since 0.1.0
 */
export const storeLayer = (spec: string | StoreSpec.StoreSpec, options: { readonly cwd?: string | undefined } = {}): Layer.Layer<SessionStore.SessionStore, SessionError.SessionError> => {
  const parsed = typeof spec === "string" ? StoreSpec.parseStoreSpec(spec, options.cwd) : Result.succeed(spec)
  if (Result.isFailure(parsed)) return Layer.effect(SessionStore.SessionStore, Effect.fail(new SessionError.SessionError({ reason: "Io", detail: `session store: ${parsed.failure}` })))
  const chosen = parsed.success
  return chosen._tag === "File" ? FileSessionStore.layer({ home: chosen.home }) : PgSessionStore.layer({ url: chosen.url })
}
