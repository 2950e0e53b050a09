import { readFileSync } from "node:fs"

declare const __DSH_VERSION__: string | undefined

/** Run from source (tests, `--conditions=@dsh/source`), the version is read from this package. */
const sourceVersion = (): string => {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version?: unknown }
    return typeof pkg.version === "string" ? pkg.version : "0.0.0"
  } catch {
    return "0.0.0"
  }
}

/**
 * The dsh release these packages belong to (every `@dsh/*` package shares one version).
 * Injected at build time; used wherever dsh announces itself: ACP `clientInfo`/`agentInfo`,
 * the SDK handshake and `dsh --version`.
 */
export const VERSION: string = typeof __DSH_VERSION__ === "string" ? __DSH_VERSION__ : sourceVersion()
