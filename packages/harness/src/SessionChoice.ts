import { AgentHost } from "@dsh/agent"
import { type SessionError, SessionStore } from "@dsh/session"
import { Effect } from "effect"

/**
 * Which session a command means: `--session ID`, `--continue` (the latest of the working
 * directory) or a new one. A choice the user must fix is `InvalidInput` (a CLI's exit 2); a
 * store that cannot say which session is the latest is `Failed` (exit 1).
 */
const usage = (message: string) => new AgentHost.HostError({ reason: "InvalidInput", message })
const failed = (message: string) => new AgentHost.HostError({ reason: "Failed", message })

/**
 * Opens `--session ID`; a session that lost its `state.json` (its transcript is there) has it
 * rebuilt from what is on disk and is continued, with one notice naming what was assumed.
 */
const openOrRecover = (id: string, cwd: string, model: string | undefined, notice: (line: string) => Effect.Effect<void>) =>
  Effect.gen(function*() {
    const store = yield* SessionStore.SessionStore
    const host = yield* AgentHost.AgentHost
    return yield* store.open(id).pipe(Effect.catchIf(
      (e) => e.reason === "StateMissing" && host.recoverSession !== undefined,
      (e) =>
        Effect.gen(function*() {
          const rebuilt = yield* host.recoverSession!({ sessionId: id, cwd, model })
          yield* notice(`${e.message}; rebuilt it from the transcript and ${rebuilt.children} ${rebuilt.children === 1 ? "child" : "children"}: ${rebuilt.notes.join("; ")}`)
          return yield* store.open(id)
        })
    ))
  })

/** `--session ID` or `--continue` (latest in this cwd); undefined means a new session. */
export const openRequestedSession = (opts: {
  readonly session?: string | undefined
  readonly continue?: boolean | undefined
  readonly cwd: string
  /** `--model`: the model a recovered session is bound to (the default when absent). */
  readonly model?: string | undefined
  /** Where a recovered session's one-line notice goes (stderr). */
  readonly notice: (line: string) => Effect.Effect<void>
}): Effect.Effect<SessionStore.SessionHandle | undefined, AgentHost.HostError | SessionError.SessionError, AgentHost.AgentHost | SessionStore.SessionStore> =>
  Effect.gen(function*() {
    if (opts.session !== undefined && opts.continue === true) {
      return yield* usage("use either --session or --continue, not both")
    }
    if (opts.session !== undefined) return yield* openOrRecover(opts.session, opts.cwd, opts.model, opts.notice)
    if (opts.continue === true) return yield* latestSession(opts.cwd, "continue")
    return undefined as SessionStore.SessionHandle | undefined
  })

/** The latest session of `cwd`, as `--continue` picks it; `purpose` words the errors. */
const latestSession = (cwd: string, purpose: "continue" | "inspect") =>
  Effect.gen(function*() {
    const store = yield* SessionStore.SessionStore
    const latest = yield* store.latest({ cwd })
    // A newer session that cannot be read might be the one meant: say so rather than pick another.
    const broken = (yield* store.unreadable).find((u) => latest === undefined || u.id > latest.id)
    if (broken !== undefined) return yield* failed(`cannot tell which session to ${purpose}: ${broken.error} (use --session ID)`)
    if (latest === undefined) return yield* usage(`no session to ${purpose} in ${cwd} (use --session ID)`)
    return latest
  })

/**
 * `--session ID` for the commands that inspect a session. Without it, the latest session of the
 * working directory (as `dsh run --continue` picks it), named in one line through `notice`.
 */
export const requireSession = (id: string | undefined, latestOf: { readonly cwd: string; readonly notice: (line: string) => Effect.Effect<void> }): Effect.Effect<SessionStore.SessionHandle, AgentHost.HostError | SessionError.SessionError, SessionStore.SessionStore> =>
  Effect.gen(function*() {
    if (id === undefined) {
      const latest = yield* latestSession(latestOf.cwd, "inspect")
      yield* latestOf.notice(`dsh: session ${latest.id} (the latest in ${latestOf.cwd}; --session ID picks another)`)
      return latest
    }
    const store = yield* SessionStore.SessionStore
    // Readers never write: the rebuild is left to the command that runs the session.
    return yield* store.open(id).pipe(Effect.catchIf(
      (e) => e.reason === "StateMissing",
      (e) => Effect.fail(failed(`${e.message}; \`dsh run --session ${id} "…"\` rebuilds it from the transcript`))
    ))
  })
