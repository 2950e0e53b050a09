/** What the host asks a harness's agent source for. */
export interface CatalogRequest {
  readonly cwd: string
  /** The main agent asked for by name (a new session's `agent`), or the one a session is bound to. */
  readonly agent?: string | undefined
  /** The session's extra state (`createSession`'s `extra`): keys of the harness's own, e.g. an agent file path. */
  readonly extra: Readonly<Record<string, unknown>>
}
