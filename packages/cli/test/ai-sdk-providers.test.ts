import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { describe, expect, it } from "vitest"
import { makeHome, runDsh, tempDir } from "./support.ts"

// The workspace's copy of the provider, from the pnpm store: a symlink to it in $DSH_HOME/node_modules
// is an installed package whose own dependencies resolve (they sit beside it in the store).
const requireHere = createRequire(join(import.meta.dirname, "../../llm-ai-sdk/package.json"))
const COMPAT_DIR = realpathSync(dirname(requireHere.resolve("@ai-sdk/openai-compatible/package.json")))

const installCompat = (home: string) => {
  mkdirSync(join(home, "node_modules", "@ai-sdk"), { recursive: true })
  symlinkSync(COMPAT_DIR, join(home, "node_modules", "@ai-sdk", "openai-compatible"), "dir")
}

const providerConfig = (url: string, extra = "") =>
  `[providers.local]\npackage = "@ai-sdk/openai-compatible"\nenv = ["LOCAL_KEY"]\noptions = { name = "local", baseURL = "${url}", includeUsage = true }\n\n[models]\nfast = "local:tiny-1"\n${extra}`

const firstUser = (r: FakeOpenAIServer.FakeRequest) => {
  const messages = (r.body as { messages: Array<{ role: string; content: unknown }> }).messages
  const user = messages.find((m) => m.role === "user")
  return typeof user?.content === "string" ? user.content : JSON.stringify(user?.content ?? "")
}
const toolResults = (r: FakeOpenAIServer.FakeRequest) => (r.body as { messages: Array<{ role: string }> }).messages.filter((m) => m.role === "tool").length

describe("[providers.<name>]: installed AI SDK providers as models", { timeout: 90_000 }, () => {
  for (const agent of ["explore", "sdk:dsh", "acp:dsh"]) {
    it(`the main agent and a ${agent} child run on local:<id> through @ai-sdk/openai-compatible from $DSH_HOME/node_modules`, async () => {
      const server = await FakeOpenAIServer.startFakeOpenAIServer({
        respond: (r) => {
          if (firstUser(r).startsWith("CHILD")) return { text: "child says PONG", usage: { input: 7, output: 3 } }
          return toolResults(r) === 0
            ? { toolCalls: [{ name: "subagent", arguments: { description: "ask the child", agent, prompt: "CHILD: say pong" } }], usage: { input: 10, output: 5 } }
            : { text: "The child said PONG.", usage: { input: 20, output: 4 } }
        }
      })
      try {
        const home = makeHome(providerConfig(server.url))
        installCompat(home)
        const r = await runDsh(["run", "-p", "--allow", "subagent", "--model", "fast", "--output-format", "json", "delegate"], {
          cwd: tempDir("dsh-project-"),
          env: { DSH_HOME: home, LOCAL_KEY: "sk-local", DSH_RESIDENT: "0" }
        })
        expect(r.stderr).toBe("")
        expect(r.code).toBe(0)
        const out = JSON.parse(r.stdout) as { status: string; result: string; subagents: Array<{ status: string }> }
        expect(out).toMatchObject({ status: "completed", result: "The child said PONG." })
        expect(out.subagents.map((s) => s.status)).toEqual(["completed"])
        expect(server.requests.length).toBe(3)
        for (const request of server.requests) {
          // Every call, the child's included, went through the AI SDK provider with the key from env.
          expect(request.headers.authorization).toBe("Bearer sk-local")
          expect(String(request.headers["user-agent"])).toContain("ai-sdk-openai-compatible")
          expect((request.body as { model: string }).model).toBe("tiny-1")
        }
      } finally {
        await server.close()
      }
    })
  }

  it("a package in the working directory's node_modules is found when $DSH_HOME has none; a refused model id is exit 2", async () => {
    const cwd = tempDir("dsh-project-")
    const pkg = join(cwd, "node_modules", "picky-provider")
    mkdirSync(pkg, { recursive: true })
    writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "picky-provider", type: "module", exports: { ".": { import: "./index.js" } } }))
    writeFileSync(
      join(pkg, "index.js"),
      "export const createPicky = () => ({ languageModel: (id) => { throw Object.assign(new Error(`No such languageModel: ${id}`), { name: 'AI_NoSuchModelError' }) } })\n"
    )
    const home = makeHome("[providers.picky]\npackage = \"picky-provider\"\n")
    const r = await runDsh(["run", "-p", "--model", "picky:huge-9", "hi"], { cwd, env: { DSH_HOME: home, DSH_RESIDENT: "0" } })
    expect(r.code).toBe(2)
    expect(r.stderr.trim().split("\n")).toHaveLength(1)
    expect(r.stderr).toContain("picky")
    expect(r.stderr).toContain("huge-9")
    expect(r.stderr).toContain("picky-provider")
    expect(r.stderr).toContain("npm install --prefix")
  })

  it("a missing package is exit 2 naming the provider, the package and the install command", async () => {
    const home = makeHome("[providers.groq]\npackage = \"@ai-sdk/not-installed-here\"\n")
    const r = await runDsh(["run", "-p", "--model", "groq:llama-3.3-70b", "hi"], { cwd: tempDir("dsh-project-"), env: { DSH_HOME: home, DSH_RESIDENT: "0" } })
    expect(r.code).toBe(2)
    expect(r.stderr.trim().split("\n")).toHaveLength(1)
    expect(r.stderr).toContain("groq")
    expect(r.stderr).toContain("@ai-sdk/not-installed-here")
    expect(r.stderr).toContain(`npm install --prefix "${home}" @ai-sdk/not-installed-here`)
  })

  it("a factory that is not a function, or an unset env variable, is exit 2; dsh doctor lists the providers", async () => {
    const home = makeHome(
      "[providers.notfn]\npackage = \"@ai-sdk/openai-compatible\"\nfactory = \"VERSION\"\n\n" +
        "[providers.nokey]\npackage = \"@ai-sdk/openai-compatible\"\nenv = [\"NOKEY_API_KEY\"]\noptions = { name = \"x\", baseURL = \"http://127.0.0.1:9/v1\" }\n"
    )
    installCompat(home)
    const env = { DSH_HOME: home, DSH_RESIDENT: "0" }
    const notFn = await runDsh(["run", "-p", "--model", "notfn:m", "hi"], { cwd: tempDir("dsh-project-"), env })
    expect(notFn.code).toBe(2)
    expect(notFn.stderr).toMatch(/notfn.*factory VERSION of package @ai-sdk\/openai-compatible is not a function/)
    const noKey = await runDsh(["run", "-p", "--model", "nokey:m", "hi"], { cwd: tempDir("dsh-project-"), env })
    expect(noKey.code).toBe(2)
    expect(noKey.stderr).toContain("NOKEY_API_KEY is not set")
    const doctor = await runDsh(["doctor", "--json"], { cwd: tempDir("dsh-project-"), env: { ...env, NOKEY_API_KEY: "k" } })
    expect(doctor.code).toBe(0)
    const report = JSON.parse(doctor.stdout) as { providers: Array<{ name: string; status: string; reason?: string }> }
    expect(report.providers.map((p) => [p.name, p.status])).toEqual([["notfn", "error"], ["nokey", "ok"]])
  })

  it("a bad [providers] entry or a built-in name is exit 2 naming the key", async () => {
    for (const [config, pattern] of [
      ["[providers.openai]\npackage = \"@ai-sdk/openai\"\n", /\[providers\.openai\] is not allowed/],
      ["[providers.x]\nfactory = \"createX\"\n", /\[providers\.x\] package must name an npm package/],
      ["[providers.x]\npackage = \"p\"\nenv = [3]\n", /\[providers\.x\] env must be a list/]
    ] as const) {
      const r = await runDsh(["run", "-p", "hi"], { cwd: tempDir("dsh-project-"), env: { DSH_HOME: makeHome(config), DSH_RESIDENT: "0" } })
      expect(r.code).toBe(2)
      expect(r.stderr).toMatch(pattern)
    }
  })
})
