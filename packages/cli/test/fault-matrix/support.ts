import { spawn } from "node:child_process"
import { writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DSH, type DshResult, tempDir } from "../support.ts"

/**
 * The lead delegates twice on "go": a child whose transcript is archived once it is back
 * (`cleanup: "delete"`) and a background child (a `tasks/` record, an announcement). Each
 * explorer answers what it was told; everything else is "done".
 */
export const delegatingScript = {
  rules: [
    { when: { system: "codebase exploration subagent" }, reply: { text: "you told me: {{lastUser}}" } },
    {
      when: { lastUser: "^go$", step: 0 },
      reply: {
        toolCalls: [
          { name: "subagent", arguments: { agent: "explore", description: "tidy one", prompt: "first task", cleanup: "delete" } },
          { name: "subagent", arguments: { agent: "explore", description: "in the background", prompt: "second task", background: true } }
        ]
      }
    },
    { reply: { text: "done" } }
  ]
}

/** A working directory holding `script.json` (the model is `scripted:script.json`). */
export const project = (): string => {
  const cwd = tempDir("dsh-cwd-")
  writeFileSync(join(cwd, "script.json"), JSON.stringify(delegatingScript))
  return cwd
}

/** Runs `./dsh` under `umask` (through `sh`, as a user's shell would), with a clean environment plus `env`. */
export const runDshUnder = (
  umask: string,
  args: ReadonlyArray<string>,
  options: { readonly env: Record<string, string>; readonly cwd?: string }
): Promise<DshResult> =>
  new Promise((done, fail) => {
    const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmpdir(), DSH_RESIDENT: "0", ...options.env }
    const child = spawn("sh", ["-c", `umask ${umask}; exec "$0" "$@"`, DSH, ...args], { cwd: options.cwd ?? tmpdir(), env, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()))
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()))
    child.on("error", fail)
    child.on("close", (code) => done({ code, stdout, stderr }))
  })
