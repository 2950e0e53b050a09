import { execFile } from "node:child_process"
import { writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { describe, expect, it } from "vitest"
import { DSH, makeHome, tempDir } from "./support.ts"

// The MCP Inspector's own CLI mode (an exact-pinned devDependency; no npx, no network) drives `dsh mcp` over stdio.
const inspector = join(dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/inspector/package.json")), "clients/launcher/build/index.js")

const SCRIPT = {
  rules: [
    { when: { lastUser: "^extract", step: 0 }, reply: { toolCalls: [{ name: "report", arguments: { result: "found Ada", json: { name: "Ada", age: 36 } } }] } },
    { reply: { text: "echo: {{lastUser}}" } }
  ]
}

const inspect = (args: ReadonlyArray<string>) => {
  const cwd = tempDir("dsh-inspector-")
  const script = join(cwd, "script.json")
  writeFileSync(script, JSON.stringify(SCRIPT))
  const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", DSH_HOME: makeHome(), DSH_RESIDENT: "0" }
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(process.execPath, [inspector, "--cli", DSH, "mcp", "--model", `scripted:${script}`, "--allow", "subagent", ...args], { cwd, env }, (error, stdout, stderr) =>
      resolve({ code: typeof error?.code === "number" ? error.code : 0, stdout, stderr }))
  )
}

describe("dsh mcp under @modelcontextprotocol/inspector --cli", () => {
  it("tools/list shows the five subagent tools, subagent with resultSchema", async () => {
    const r = await inspect(["--method", "tools/list"])
    expect(r.code, r.stderr).toBe(0)
    const { tools } = JSON.parse(r.stdout) as { tools: Array<{ name: string; inputSchema: { properties: Record<string, unknown> } }> }
    expect(tools.map((t) => t.name).sort()).toEqual(["list_agents", "send_message", "stop", "subagent", "wait"])
    expect(Object.keys(tools.find((t) => t.name === "subagent")!.inputSchema.properties)).toEqual(expect.arrayContaining(["agent", "prompt", "background", "resultSchema"]))
  }, 60_000)

  it("tools/call subagent with resultSchema returns the child's JSON as structuredContent", async () => {
    const schema = { type: "object", properties: { name: { type: "string" }, age: { type: "number" } }, required: ["name", "age"] }
    const r = await inspect(["--method", "tools/call", "--tool-name", "subagent", "--tool-arg", "description=extract", "--tool-arg", "prompt=extract the person", "--tool-arg", `resultSchema=${JSON.stringify(schema)}`])
    expect(r.code, r.stderr).toBe(0)
    const result = JSON.parse(r.stdout) as { isError: boolean; structuredContent: unknown }
    expect(result.isError).toBe(false)
    expect(result.structuredContent).toEqual({ result: { name: "Ada", age: 36 }, handle: "coder-1", status: "completed", text: "found Ada" })
  }, 60_000)

  it("tools/call with an unknown agent is an error result naming the agents there are", async () => {
    const r = await inspect(["--method", "tools/call", "--tool-name", "subagent", "--tool-arg", "description=x", "--tool-arg", "prompt=hi", "--tool-arg", "agent=nope"])
    expect(r.stdout).toContain(`unknown agent type \\"nope\\"; available: `)
    expect(r.stdout).toContain("coder, explore")
  }, 60_000)
})
