import { type SessionHandle, SessionStore } from "@dsh/session"
import { Effect } from "effect"
import { RunFailed, UsageError } from "./CliError.ts"

/** `--session ID` or `--continue` (latest in this cwd); undefined means a new session. */
export const openRequestedSession = (opts: {
  readonly session?: string | undefined
  readonly continue?: boolean | undefined
  readonly cwd: string
}) =>
  Effect.gen(function*() {
    const store = yield* SessionStore
    if (opts.session !== undefined && opts.continue === true) {
      return yield* new UsageError({ message: "use either --session or --continue, not both" })
    }
    if (opts.session !== undefined) return yield* store.open(opts.session)
    if (opts.continue === true) {
      const latest = yield* store.latest({ cwd: opts.cwd })
      // A newer session that cannot be read might be the one meant: say so rather than pick another.
      const broken = (yield* store.unreadable).find((u) => latest === undefined || u.id > latest.id)
      if (broken !== undefined) return yield* new RunFailed({ message: `cannot tell which session to continue: ${broken.error} (use --session ID)` })
      if (latest === undefined) return yield* new UsageError({ message: `no session to continue in ${opts.cwd}` })
      return latest
    }
    return undefined as SessionHandle | undefined
  })

/** `--session ID` for the commands that inspect a session. */
export const requireSession = (id: string | undefined) =>
  Effect.gen(function*() {
    if (id === undefined) return yield* new UsageError({ message: "--session ID is required" })
    const store = yield* SessionStore
    return yield* store.open(id)
  })
