import { startFakeOpenAIServer } from "@dsh/llm-openai/testing"
import { spawnSync } from "node:child_process"
const server = await startFakeOpenAIServer({ replies: [{ text: "Hello there, nice to meet!", usage: { input: 12, output: 6 } }] })
const r = spawnSync(process.execPath, ["--conditions=@dsh/source", process.argv[2]!], { env: { ...process.env, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-x" }, encoding: "utf8" })
console.log(r.status, r.stdout, r.stderr)
await server.close()
