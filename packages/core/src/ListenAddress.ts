import { Result } from "effect"

/** Where a server listens; port 0 asks the system for a free one. */
export interface ListenAddress {
  readonly host: string
  readonly port: number
}

/**
 * A `--listen` value: `HOST:PORT`, `[IPv6]:PORT`, `:PORT` (host 127.0.0.1) or, unless
 * `portRequired`, `HOST` alone (port 0). The failure is the sentence to show the user.
 */
export const parse = (text: string, options?: { readonly portRequired?: boolean }): Result.Result<ListenAddress, string> => {
  const colon = text.lastIndexOf(":")
  const host = (colon === -1 ? text : text.slice(0, colon)).replace(/^\[(.*)\]$/, "$1") || "127.0.0.1"
  const portText = colon === -1 ? (options?.portRequired === true ? "none" : "") : text.slice(colon + 1)
  const port = portText === "" ? 0 : Number(portText)
  return Number.isInteger(port) && port >= 0 && port <= 65535
    ? Result.succeed({ host, port })
    : Result.fail(`--listen must be HOST:PORT with a port from 0 to 65535 (got "${text}")`)
}
