/**
 * Environment scrubbing for child processes. A child sees only what it needs to run
 * (PATH, HOME, locale, terminal, temp dir, user, shell); everything else, and above all
 * anything that looks like a credential, stays with the parent unless it is passed on purpose.
 */

/** The variable names a child inherits by default. A trailing `*` matches a prefix (`LC_*`). */
export const DEFAULT_INHERITED_ENV: ReadonlyArray<string> = [
  "PATH",
  "HOME",
  "LANG",
  "LANGUAGE",
  "LC_*",
  "TERM",
  "TMPDIR",
  "TZ",
  "USER",
  "LOGNAME",
  "SHELL"
]

const CREDENTIAL_PATTERN = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION/i

/**
 * Whether a variable name looks like it holds a credential. Deliberately broad (`SSH_AUTH_SOCK`
 * and `XDG_SESSION_ID` match too): a false positive costs an explicit `add`, a false negative
 * leaks a secret to a child the model controls.
 */
export const isCredentialName = (name: string): boolean => CREDENTIAL_PATTERN.test(name)

export interface ScrubOptions {
  /** Replaces the default allow-list of inherited names (`LC_*`-style prefixes allowed). */
  readonly inherit?: ReadonlyArray<string> | undefined
  /** Variables set explicitly; the only way a credential-looking name reaches the child. */
  readonly add?: Readonly<Record<string, string>> | undefined
}

const matcher = (pattern: string): ((name: string) => boolean) =>
  pattern.endsWith("*")
    ? (name) => name.startsWith(pattern.slice(0, -1))
    : (name) => name === pattern

/**
 * The environment for a child: the allowed names copied from `parentEnv` (credential-looking
 * names skipped even when listed in `inherit`), then `add` on top. Pure; pass the result with
 * `extendEnv: false` so nothing else leaks in.
 */
export const scrubEnvironment = (
  parentEnv: Readonly<Record<string, string | undefined>>,
  options: ScrubOptions = {}
): Record<string, string> => {
  const allowed = (options.inherit ?? DEFAULT_INHERITED_ENV).map(matcher)
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(parentEnv)) {
    if (value === undefined || isCredentialName(name)) continue
    if (allowed.some((m) => m(name))) env[name] = value
  }
  return { ...env, ...options.add }
}
