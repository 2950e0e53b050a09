// Whether a start may go to a resident: only when its user asked for one. Read before anything
// heavy loads: the environment first; the config file only when the environment says nothing,
// and parsed only when it mentions `resident` at all.
import { readFileSync } from "node:fs"
import { homedir } from "node:os"
import { join } from "node:path"

/** Whether the resident is on for a start, its name, and what decided it. */
export interface ResidentSetting {
  readonly on: boolean
  /** The resident's name: starts that give another name share another resident ("" by default). */
  readonly name: string
  /** `env` (`DSH_RESIDENT`), `config` (`[cli] resident` in config.toml) or `default` (off). */
  readonly source: "env" | "config" | "default"
  /** One line for people: why it is on or off. */
  readonly reason: string
}

/**
 * The resident setting of a start: `DSH_RESIDENT=0` is off, `1` on, any other value on with
 * that name; unset, `[cli] resident = true` in `$DSH_HOME/config.toml` (default `~/.dsh`) is on.
 * Off otherwise, and off when the config cannot be read or parsed (dsh itself reports that).
 */
export const residentSetting = async (env: NodeJS.ProcessEnv): Promise<ResidentSetting> => {
  const value = env.DSH_RESIDENT
  if (value !== undefined && value !== "") {
    return value === "0"
      ? { on: false, name: "", source: "env", reason: "off: DSH_RESIDENT=0" }
      : { on: true, name: value === "1" ? "" : value, source: "env", reason: `on: DSH_RESIDENT=${value}` }
  }
  const file = join(dshHomeOf(env), "config.toml")
  let text: string
  try {
    text = readFileSync(file, "utf8")
  } catch {
    return off
  }
  if (!/\bresident\b/.test(text)) return off
  try {
    // smol-toml, the parser dsh reads its config with; loaded only for a config that mentions it.
    const cli = ((await import("smol-toml")).parse(text) as { cli?: { resident?: unknown } } | undefined)?.cli
    if (cli?.resident === true) return { on: true, name: "", source: "config", reason: `on: [cli] resident = true in ${file}` }
  } catch {
    // a config dsh itself will report as malformed
  }
  return off
}

/** `$DSH_HOME`, default `~/.dsh`. */
export const dshHomeOf = (env: NodeJS.ProcessEnv): string =>
  env.DSH_HOME !== undefined && env.DSH_HOME !== "" ? env.DSH_HOME : join(homedir(), ".dsh")

const off: ResidentSetting = { on: false, name: "", source: "default", reason: "off (the default; DSH_RESIDENT=1 or [cli] resident = true turns it on)" }
