import { Result } from "effect"

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

/**
 * The bearer token a served dsh requires: `[a2a.serve] token_env` of a config file (`raw`) names
 * the variable that holds it, read from `env`; no setting, no token. A setting whose variable is
 * unset is a failure sentence, so the harness never serves openly what was meant to be closed.
 */
export const serveToken = (raw: unknown, env: Readonly<Record<string, string | undefined>>): Result.Result<string | undefined, string> => {
  const serve = isRecord(raw) && isRecord(raw.a2a) && isRecord(raw.a2a.serve) ? raw.a2a.serve : {}
  const name = typeof serve.token_env === "string" && serve.token_env !== "" ? serve.token_env : undefined
  if (name === undefined) return Result.succeed(undefined)
  const token = env[name]
  return token === undefined || token === "" ? Result.fail(`[a2a.serve] token_env = "${name}", but ${name} is not set`) : Result.succeed(token)
}

/** The card's skills: one per agent type given (those the main agent can delegate to), with its description's first line. */
export const cardSkills = (agents: ReadonlyArray<{ readonly name: string; readonly description: string }>): ReadonlyArray<{ readonly name: string; readonly description: string }> =>
  agents.map((a) => ({ name: a.name, description: a.description.split("\n")[0] ?? "" }))
