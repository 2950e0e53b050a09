import { AgentCatalog, AgentHost } from "@dsh/agent"
import { Harness } from "@dsh/harness"
import { ModelRegistry } from "@dsh/llm"
import { ScriptedAdapter } from "@dsh/llm-scripted"
import { MemorySessionStore } from "@dsh/session"
import { LocalProcessLauncher } from "@dsh/subprocess"
import { McpTools } from "@dsh/tools-mcp"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { Effect, Layer } from "effect"
import { z } from "zod"

// The MCP server: any stdio server (`npx -y @modelcontextprotocol/server-filesystem …`). Here,
// this same file run with `--mcp-server`, built with the MCP SDK.
const serveWords = async () => {
  const server = new McpServer({ name: "words", version: "1.0.0" })
  server.registerTool("shout", { description: "Upper-cases a text", inputSchema: { text: z.string().describe("What to shout") } }, ({ text }) => ({
    content: [{ type: "text", text: text.toUpperCase() }]
  }))
  await server.connect(new StdioServerTransport())
}

const script = {
  rules: [
    { when: { step: 0 }, reply: { toolCalls: [{ name: "mcp__words__shout", arguments: { text: "{{lastUser}}" } }] } },
    { reply: { text: "The MCP server said: {{lastTool}}" } }
  ]
}
const host = Harness.layer({
  agents: () => Effect.succeed(AgentCatalog.staticCatalog({ main: { name: "lead", description: "leads", systemPrompt: "You lead.", override: false, scope: "runtime", source: "example" } })),
  backends: [],
  // The server runs as long as the host (through the ProcessLauncher); its tools are mcp__words__*.
  tools: McpTools.connectMcpServers([{ name: "words", command: process.execPath, args: [import.meta.filename, "--mcp-server"] }]),
  model: "scripted:lead"
}).pipe(Layer.provide(Layer.mergeAll(
  MemorySessionStore.layer,
  ModelRegistry.layerWith([ScriptedAdapter.make({ scripts: { lead: script } })]),
  LocalProcessLauncher.layer()
)))

const program = Effect.gen(function*() {
  const dsh = yield* AgentHost.AgentHost
  const session = yield* dsh.createSession({ cwd: process.cwd() })
  const result = yield* dsh.prompt({ sessionId: session.id, prompt: "ship it" })
  console.log(result.result) // The MCP server said: SHIP IT
})

if (process.argv[2] === "--mcp-server") await serveWords()
else await Effect.runPromise(program.pipe(Effect.provide(host)))
