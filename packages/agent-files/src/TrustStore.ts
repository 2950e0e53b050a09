import * as Path from "node:path"
import { Effect, Semaphore } from "effect"
import { AgentDefinitionError } from "./AgentDefinitionError.ts"
import * as Fs from "./internal/Fs.ts"

/**
 * Which project roots the user has trusted. Project agent files come from the repository itself
 * (possibly one just cloned), so a project file that replaces a built-in agent, whose body *is*
 * the system prompt, takes effect only in a trusted project. Decisions are recorded in
 * `$DSH_HOME/trusted-projects.json`, replaced atomically on every change.
 */

export const TRUST_FILE_NAME = "trusted-projects.json"

export interface TrustDecision {
  /** The project root as recorded: absolute, symlinks resolved when it exists. */
  readonly projectRoot: string
  readonly trusted: boolean
  /** ISO time of the decision. */
  readonly decidedAt: string
}

export interface TrustStore {
  /** Where decisions are kept, for messages. */
  readonly location: string
  /** True only after an explicit `trust`; unknown and untrusted projects are not trusted. */
  readonly isTrusted: (projectRoot: string) => Effect.Effect<boolean, AgentDefinitionError>
  readonly trust: (projectRoot: string) => Effect.Effect<void, AgentDefinitionError>
  /** Records a "not trusted" decision (kept, so a later listing shows it was revoked). */
  readonly untrust: (projectRoot: string) => Effect.Effect<void, AgentDefinitionError>
  readonly decisions: Effect.Effect<ReadonlyArray<TrustDecision>, AgentDefinitionError>
}

interface TrustFile {
  readonly version: 1
  readonly projects: Readonly<Record<string, { readonly trusted: boolean; readonly decidedAt: string }>>
}

const isTrustFile = (value: unknown): value is TrustFile => {
  if (typeof value !== "object" || value === null) return false
  const v = value as { version?: unknown; projects?: unknown }
  if (v.version !== 1 || typeof v.projects !== "object" || v.projects === null) return false
  return Object.values(v.projects).every((d: unknown) =>
    typeof d === "object" && d !== null && typeof (d as { trusted?: unknown }).trusted === "boolean"
  )
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** A file-backed store under `dshHome`. `now` is injectable for tests. */
export const makeFileTrustStore = (
  dshHome: string,
  options: { readonly now?: () => Date } = {}
): TrustStore => {
  const location = Path.join(dshHome, TRUST_FILE_NAME)
  const now = options.now ?? (() => new Date())
  const ioError = (detail: string) => new AgentDefinitionError({ reason: "Io", detail, path: location })

  const read: Effect.Effect<TrustFile, AgentDefinitionError> = Fs.readText(location).pipe(
    Effect.result,
    Effect.flatMap((result) => {
      if (result._tag === "Failure") {
        return Fs.isMissing(result.failure)
          ? Effect.succeed<TrustFile>({ version: 1, projects: {} })
          : Effect.fail(ioError(`cannot read the trust store: ${result.failure.message}`))
      }
      const parsed = parseJson(result.success)
      return isTrustFile(parsed)
        ? Effect.succeed(parsed)
        : Effect.fail(ioError("the trust store is not valid JSON of the expected shape; fix or delete it"))
    })
  )

  /** Symlinked and relative spellings of one root must share one decision. */
  const key = (projectRoot: string) =>
    Fs.realpath(Path.resolve(projectRoot)).pipe(Effect.orElseSucceed(() => Path.resolve(projectRoot)))

  const lock = Semaphore.makeUnsafe(1)

  const record = (projectRoot: string, trusted: boolean) =>
    lock.withPermit(Effect.gen(function*() {
      const root = yield* key(projectRoot)
      const file = yield* read
      const next: TrustFile = {
        version: 1,
        projects: { ...file.projects, [root]: { trusted, decidedAt: now().toISOString() } }
      }
      yield* Fs.mkdirp(dshHome).pipe(
        Effect.andThen(Fs.writeAtomic(location, JSON.stringify(next, null, 2) + "\n")),
        Effect.mapError((failure) => ioError(`cannot write the trust store: ${failure.message}`))
      )
    }))

  return {
    location,
    isTrusted: (projectRoot) =>
      Effect.gen(function*() {
        const root = yield* key(projectRoot)
        const file = yield* read
        return file.projects[root]?.trusted === true
      }),
    trust: (projectRoot) => record(projectRoot, true),
    untrust: (projectRoot) => record(projectRoot, false),
    decisions: read.pipe(Effect.map((file) =>
      Object.entries(file.projects)
        .map(([projectRoot, d]) => ({ projectRoot, trusted: d.trusted, decidedAt: d.decidedAt }))
        .sort((a, b) => (a.projectRoot < b.projectRoot ? -1 : a.projectRoot > b.projectRoot ? 1 : 0))
    ))
  }
}
