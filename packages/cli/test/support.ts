import { spawn } from "node:child_process"
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

/** The repository's `./dsh` launcher: tests drive the CLI exactly as users do. */
export const DSH = resolve(import.meta.dirname, "../../../dsh")

export interface DshResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

export const tempDir = (prefix = "dsh-test-"): string => mkdtempSync(join(tmpdir(), prefix))

/** A fresh `$DSH_HOME`, optionally with a config.toml. */
export const makeHome = (config?: string): string => {
  const home = tempDir("dsh-home-")
  if (config !== undefined) writeFileSync(join(home, "config.toml"), config)
  return home
}

/** Fast retries so failure tests don't wait on real backoff. */
export const FAST_RETRIES = "[llm]\nmax_retries = 2\nretry_base_ms = 5\n"

export const sessionIds = (home: string): Array<string> => {
  try {
    return readdirSync(join(home, "sessions"))
  } catch {
    return []
  }
}

/** Runs `./dsh` with a clean environment plus `env`, in `cwd`. */
export const runDsh = (
  args: ReadonlyArray<string>,
  options: { readonly env?: Record<string, string | undefined>; readonly cwd?: string; readonly input?: string } = {}
): Promise<DshResult> =>
  new Promise((done, fail) => {
    const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmpdir() }
    for (const [k, v] of Object.entries(options.env ?? {})) if (v !== undefined) env[k] = v
    const child = spawn(DSH, [...args], { cwd: options.cwd ?? tmpdir(), env, stdio: ["pipe", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()))
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()))
    child.on("error", fail)
    child.on("close", (code) => done({ code, stdout, stderr }))
    child.stdin.end(options.input ?? "")
  })
