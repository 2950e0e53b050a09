import { AgentHost } from "@dsh/agent"
import { ResolveAgents } from "@dsh/agent-files"
import { Version } from "@dsh/core"
import { FileAgents, type HarnessConfig } from "@dsh/harness"
import { Asker } from "@dsh/tools"
import { Data, Effect, Result, type Scope } from "effect"
import { join } from "node:path"
import * as DshHarness from "./DshHarness.ts"
import type * as DshModels from "./DshModels.ts"

/** dsh cannot serve A2A as asked: its agent files, `[a2a.serve] token_env`, or the address. */
export class DshA2aError extends Data.TaggedError("DshA2aError")<{ readonly message: string }> {}

/** What the session of a new A2A `contextId` is created with. */
export interface ServeCreate {
  readonly cwd: string
  readonly agent?: string | undefined
  readonly model?: string | undefined
}

export interface ServeOptions {
  readonly host: string
  /** 0 binds a free port. */
  readonly port: number
  /** The sessions a new `contextId` gets. */
  readonly create: ServeCreate
  /** How a permission `ask` that no one could answer tells the model to allow the call. */
  readonly allowHint?: ((question: Asker.PermissionQuestion) => string) | undefined
}

/**
 * dsh's main agent (with its subagents) served as an A2A agent until the scope closes (`dsh
 * a2a`): the card's skills are the delegable agents of the working directory, `[a2a.serve]
 * token_env` names the variable holding the bearer token every request must carry, each
 * `contextId` is one session recorded under `$DSH_HOME/a2a/contexts`. A client that activates the
 * permission-questions extension is asked on its task; for any other an `ask` is a denial.
 * `@dsh/subagent-a2a/serve` (the HTTP server) loads only here.
 */
export const serve = (
  place: DshModels.DshPlace,
  config: HarnessConfig.HarnessConfig,
  install: Pick<DshHarness.DshInstall, "builtinAgentsDir">,
  options: ServeOptions
): Effect.Effect<{ readonly url: string }, DshA2aError, AgentHost.AgentHost | Scope.Scope> =>
  Effect.gen(function*() {
    const { cardSkills, PERMISSION_QUESTIONS_EXTENSION, serveA2a, serveToken } = yield* Effect.promise(() => import("@dsh/subagent-a2a/serve"))
    const search = FileAgents.agentSearch(DshHarness.agentFiles(place, config, install), { cwd: options.create.cwd })
    const resolved = yield* ResolveAgents.resolveAgents(search).pipe(Effect.mapError((e) => new DshA2aError({ message: e.message })))
    const token = serveToken(config.raw, place.env)
    if (Result.isFailure(token)) return yield* new DshA2aError({ message: token.failure })
    const nobody = Asker.nobodyAsker({
      hint: options.allowHint,
      why: `this A2A client cannot be asked (it did not activate the extension ${PERMISSION_QUESTIONS_EXTENSION})`
    })
    return yield* serveA2a({
      host: options.host,
      port: options.port,
      token: token.success,
      contextsDir: join(place.home, "a2a", "contexts"),
      create: options.create,
      version: Version.VERSION,
      skills: cardSkills(resolved.agents.filter(ResolveAgents.isDelegable))
    }).pipe(Effect.provideService(Asker.Asker, nobody), Effect.mapError((e) => new DshA2aError({ message: e.message })))
  })
