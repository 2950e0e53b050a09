import { fakeAcpAgentArgs, fakeAcpAgentScript, type FakeAcpAgentOptions } from "@dsh/subagent-acp/testing"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { tempDir } from "../support.ts"

/** A `[acp.agents.<name>]` table running the fake vendor agent (a real process on stdio). */
export const agentToml = (name: string, options: Omit<FakeAcpAgentOptions, "name">, extra = "") =>
  [
    `[acp.agents.${name}]`,
    `command = ${JSON.stringify(process.execPath)}`,
    `args = ${JSON.stringify([fakeAcpAgentScript(), ...fakeAcpAgentArgs(options)])}`,
    extra,
    ""
  ].join("\n")

/** The parent model: `delegate AGENT PROMPT` calls `subagent`, then says what it got. */
export const delegatingScript = () => {
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
