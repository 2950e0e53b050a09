// An MCP client (the official SDK's) driving `dsh mcp` over stdio, as Claude Code, Codex or
// Cursor would: list dsh's subagent tools, then hand one task to a child.
// Run: node main.ts (the children ask a local mock model; see mock.ts).
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { mkdtempSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { startMockModel } from "./mock.ts"

const server = await startMockModel()
// The installed CLI's entry point (`dsh` on PATH works the same).
const cliManifest = createRequire(import.meta.url).resolve("@dsh/cli/package.json")
const dsh = join(dirname(cliManifest), "dist", "main.js")

const client = new Client({ name: "dsh-mcp-example", version: "1.0.0" })
await client.connect(new StdioClientTransport({
  command: process.execPath,
  args: [dsh, "mcp", "--model", "openai:tiny-1"],
  // A fresh dsh home: sessions of this run land there, not in ~/.dsh.
  env: { PATH: process.env.PATH ?? "", DSH_HOME: mkdtempSync(join(tmpdir(), "dsh-mcp-example-")), DSH_RESIDENT: "0", OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-local" },
  stderr: "inherit"
}))
try {
  const { tools } = await client.listTools()
  console.log(`tools: ${tools.map((t) => t.name).join(", ")}`)
  const result = await client.callTool({ name: "subagent", arguments: { agent: "explore", description: "find parsers", prompt: "Which files parse JSON?" } })
  const [first] = result.content as Array<{ type: string; text?: string }>
  console.log(`subagent: ${first?.text?.replace(/\n/g, " ")}`)
  const listed = await client.callTool({ name: "list_agents", arguments: {} })
  console.log(`list_agents: ${(listed.content as Array<{ text?: string }>)[0]?.text?.split("\n")[0]}`)
} finally {
  await client.close() // the connection's children are stopped with it
  await server.close()
}
