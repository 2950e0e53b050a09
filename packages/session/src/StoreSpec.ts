/**
 * Where a harness keeps its sessions, as one string (a `--store` flag, `DSH_STORE`, `store =` in
 * config.toml): a directory for the file store, or a `postgres://` URL for `@dsh/session-pg`.
 * Parsing lives here, without any database code, so a harness can validate the setting before
 * it picks the store's layer.
 *
 * @since 0.1.0
 */
import { isAbsolute, resolve } from "node:path"
import { Result } from "effect"

/** A parsed store setting. `home` is absolute; `url` is the URL as given (password included). */
export type StoreSpec =
  | { readonly _tag: "File"; readonly home: string }
  | { readonly _tag: "Postgres"; readonly url: string }

const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i

/**
 * A URL for display: no password, no query (it may hold credentials), e.g.
 * `postgres://dsh@db.internal:5432/dsh`. Text that is not a URL is returned as it is.
 */
export const displayUrl = (url: string): string => {
  try {
    const parsed = new URL(url)
    const user = parsed.username === "" ? "" : `${parsed.username}@`
    return `${parsed.protocol}//${user}${parsed.host}${parsed.pathname === "/" ? "" : parsed.pathname}`
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@/]*@/, "//$1@")
  }
}

/**
 * Reads a store setting: a `postgres://` (or `postgresql://`) URL with a host, or a directory
 * path (relative ones resolved against `cwd`). The failure is a sentence without the password.
 */
export const parseStoreSpec = (spec: string, cwd: string = process.cwd()): Result.Result<StoreSpec, string> => {
  const text = spec.trim()
  if (text === "") return Result.fail("must be a directory or a postgres:// URL (got an empty string)")
  const scheme = SCHEME.exec(text)?.[1]?.toLowerCase()
  if (scheme === undefined) return Result.succeed({ _tag: "File", home: isAbsolute(text) ? text : resolve(cwd, text) })
  if (scheme !== "postgres" && scheme !== "postgresql") {
    return Result.fail(`must be a directory or a postgres:// URL (got a ${scheme}:// URL)`)
  }
  let parsed: URL
  try {
    parsed = new URL(text)
  } catch {
    return Result.fail(`"${displayUrl(text)}" is not a valid URL`)
  }
  if (parsed.hostname === "") return Result.fail(`"${displayUrl(text)}" names no host`)
  return Result.succeed({ _tag: "Postgres", url: text })
}
