import { FileSessionStore, MemorySessionStore, type SessionError, SessionStore } from "@dsh/session"
import { Effect, Layer } from "effect"
import type { KitStore } from "../Options.ts"
import { SubagentsError } from "../SubagentsError.ts"

/** The `SessionStore` a kit's `store` option names; PostgreSQL's package is loaded only when asked for. */
export const storeLayer = (store: KitStore | undefined): Layer.Layer<SessionStore.SessionStore, SubagentsError | SessionError.SessionError> => {
  if (store === undefined || store === "memory") return MemorySessionStore.layer
  if ("dir" in store) return FileSessionStore.layer({ home: store.dir })
  return Layer.unwrap(
    Effect.tryPromise({
      try: () => import("@dsh/session-pg"),
      catch: () => new SubagentsError("InvalidOptions", "store { postgres } needs the @dsh/session-pg package: npm install @dsh/session-pg")
    }).pipe(Effect.map((pg) => pg.PgSessionStore.layer({ url: store.postgres })))
  )
}
