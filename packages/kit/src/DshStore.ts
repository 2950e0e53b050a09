import type { HarnessConfig } from "@dsh/harness"
import { FileSessionStore, type SessionError, type SessionStore, StoreChoice, type StoreSpec } from "@dsh/session"
import { Data, Effect, Layer, Result } from "effect"
import type * as DshModels from "./DshModels.ts"

/** A store setting dsh cannot use; the message names the setting (`--store`, `DSH_STORE`, config.toml). */
export class DshStoreError extends Data.TaggedError("DshStoreError")<{ readonly message: string }> {}

/**
 * dsh's session store: `flag` (a harness's own `--store`), else `DSH_STORE` of the place's
 * environment, else `store =` of config.toml, else the file store in `$DSH_HOME`.
 */
export const choose = (place: DshModels.DshPlace, config: HarnessConfig.HarnessConfig, flag?: string | undefined): Effect.Effect<StoreChoice.ChosenStore, DshStoreError> => {
  const chosen = StoreChoice.chooseStoreSpec({ flag, env: place.env.DSH_STORE, configured: config.store, cwd: place.cwd, home: place.home })
  return Result.isFailure(chosen) ? Effect.fail(new DshStoreError({ message: chosen.failure })) : Effect.succeed(chosen.success)
}

/**
 * The `SessionStore` of a chosen store. `@dsh/session-pg` (an optional peer) is loaded only for
 * a URL, so a harness on the file store never pays for the PostgreSQL client's modules.
 */
export const layer = (spec: StoreSpec.StoreSpec): Layer.Layer<SessionStore.SessionStore, SessionError.SessionError> =>
  spec._tag === "File"
    ? FileSessionStore.layer({ home: spec.home })
    : Layer.unwrap(Effect.promise(() => import("@dsh/session-pg")).pipe(Effect.map((m) => m.StoreLayer.storeLayer(spec))))

/** The database URL of a store the cluster can run on; `who` (`--cluster`, `runner`) names what needs it. */
export const clusterUrl = (chosen: StoreChoice.ChosenStore, who: string): Effect.Effect<string, DshStoreError> =>
  chosen.spec._tag === "Postgres"
    ? Effect.succeed(chosen.spec.url)
    : Effect.fail(new DshStoreError({
      message: `${who} needs a PostgreSQL store (--store postgres://…, DSH_STORE or store = in config.toml); ${chosen.source === "default" ? "sessions are in" : `${chosen.source} is the directory`} ${chosen.spec.home}`
    }))
