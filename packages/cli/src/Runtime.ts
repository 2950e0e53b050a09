import { DshModels } from "@dsh/kit/dsh"
import { StoreTrouble } from "@dsh/session"
import { Worktrees } from "@dsh/subagent"
import { LocalProcessLauncher } from "@dsh/subprocess"
import { layer as fileLogLayer } from "@dsh/telemetry/file-log"
import { Effect, Layer } from "effect"
import { join } from "node:path"
import type { CliContext } from "./Context.ts"

/**
 * The services every command runs with: models, local processes, logs. The session store is
 * the command's (`Store.ts`: `--store`, `DSH_STORE`, config, or the file store in `$DSH_HOME`).
 */
export const cliLayer = (ctx: CliContext) =>
  Layer.unwrap(Effect.sync(() => {
    const storeTrouble = StoreTrouble.make()
    const base = Layer.mergeAll(
      DshModels.registryLayer(),
      // Git runs through the launcher too: children with `isolation: "worktree"` get theirs.
      Layer.provideMerge(Worktrees.layer, LocalProcessLauncher.layer()),
      Layer.succeed(StoreTrouble.StoreTrouble, storeTrouble),
      fileLogLayer({ file: join(ctx.home, "logs", "dsh.log"), stderr: ctx.stderr, divert: StoreTrouble.divertStoreFailures(storeTrouble) })
    )
    // Built over the logger layer, so warnings reach both the local log and the exporter.
    return wantsTelemetry(ctx.env) ? Layer.provideMerge(telemetryLayer(ctx.env), base) : base
  }))

/** The standard OTLP endpoint variables: without one nothing is exported and `@dsh/telemetry` is never loaded. */
export const wantsTelemetry = (env: CliContext["env"]): boolean =>
  [env.OTEL_EXPORTER_OTLP_ENDPOINT, env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT].some((v) => v !== undefined && v.trim() !== "")

const telemetryLayer = (env: CliContext["env"]) =>
  Layer.unwrap(Effect.promise(() => import("@dsh/telemetry").then((m) => m.DshTelemetry.fromEnv(env))))
