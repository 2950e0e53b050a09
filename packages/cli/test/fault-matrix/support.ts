import { FakeAcpAgent } from "@dsh/subagent-acp/testing"
import { spawn } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
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

/** A `[acp.agents.<name>]` table running the fake vendor agent (a real process on stdio). */
export const agentToml = (name: string, options: Omit<FakeAcpAgent.FakeAcpAgentOptions, "name">, extra = "") =>
  [
    `[acp.agents.${name}]`,
    `command = ${JSON.stringify(process.execPath)}`,
    `args = ${JSON.stringify([FakeAcpAgent.fakeAcpAgentScript(), ...FakeAcpAgent.fakeAcpAgentArgs(options)])}`,
    extra,
    ""
  ].join("\n")

/** The parent model: `delegate AGENT PROMPT` calls `subagent`, then says what it got. */
export const delegateScriptFile = () => {
  const file = join(tempDir("dsh-fault-script-"), "script.json")
  writeFileSync(file, JSON.stringify({
    rules: [
      { when: { lastUser: "^delegate (\\S+) (.*)$", step: 0 }, reply: { toolCalls: [{ name: "subagent", arguments: { description: "fault", prompt: "{{2}}", agent: "{{1}}" } }] } },
      { when: { lastUser: "^delegate", step: 1 }, reply: { text: "Parent got: {{lastTool|firstLine}}" } }
    ]
  }))
  return file
}

export const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>
export const jsonLines = (file: string) =>
  readFileSync(file, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Record<string, unknown>)
