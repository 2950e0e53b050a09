import { assert, describe, it } from "@effect/vitest"
import { FakeOpenAIServer } from "@dsh/llm-openai/testing"
import { FileSessionStore } from "@dsh/session"
import { Subagents, SubagentTree, type Vocabulary } from "@dsh/subagent"
import { Fixtures } from "@dsh/subagent/testing"
import { AcpAgentConfig, AcpProvider } from "@dsh/subagent-acp"
import { LocalProcessLauncher } from "@dsh/subprocess"
import { Asker, Permissions } from "@dsh/tools"
import { Effect, Stream } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { expect, it as vitestIt } from "vitest"
import { makeHome, runDsh, tempDir } from "./support.ts"

const CLI_MAIN = resolve(import.meta.dirname, "../dist/main.js")

interface Body {
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: string | null }>
}
const messages = (r: FakeOpenAIServer.FakeRequest) => (r.body as Body).messages
const jsonLines = (file: string) => readFileSync(file, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Record<string, unknown>)

describe("acp:dsh child over real stdio, its model on a local OpenAI-compatible server", () => {
  it.live("runs a tool after asking the parent's rules, streams text, and hands back its result with usage", () =>
    Effect.gen(function*() {
      // The child's model: first a Write (which needs approval), then the final answer.
      const server = yield* Effect.acquireRelease(
        Effect.promise(() =>
          FakeOpenAIServer.startFakeOpenAIServer({
            respond: (r) =>
              messages(r).some((m) => m.role === "tool")
                ? { text: "The note is written.", usage: { input: 80, output: 7 } }
                : { text: "Writing the note.", toolCalls: [{ name: "Write", arguments: { path: "note.md", content: "# from the child\n" } }], usage: { input: 50, output: 10 } }
          })
        ),
        (s) => Effect.promise(() => s.close())
      )
      const home = tempDir("dsh-acp-parent-")
      const cwd = tempDir("dsh-acp-project-")
      const store = yield* FileSessionStore.make({ home })
      const session = yield* store.create({ agent: "main", cwd, model: "openai:gpt-fake" })
      const tree = yield* SubagentTree.make({ session, childContext: () => Effect.succeed({ tools: [], systemPrompt: "" }) })
      const dsh = AcpAgentConfig.dshAcpAgent({ command: process.execPath, args: [CLI_MAIN] })
      // Only the allow-list and the explicit credentials reach the child; this secret must not.
      const parentEnv = { PATH: process.env.PATH, HOME: process.env.HOME, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-child", GITHUB_TOKEN: "ghp-secret" }
      const provider = yield* AcpProvider.make({ agents: [dsh], parentEnv }).pipe(Effect.provide(LocalProcessLauncher.layer()))
      const subagents = yield* Subagents.make({ tree, providers: [provider], types: AcpAgentConfig.acpAgentTypes([dsh]) })
      const parent: Vocabulary.ParentInfo = Fixtures.testParent({ provider: "openai", model: "gpt-fake", stream: () => Stream.empty, generate: () => Effect.die("unused") }, { cwd })
      const asked: Array<Asker.PermissionQuestion> = []
      const result = yield* subagents.spawn({ prompt: "Write note.md, then say so.", description: "write a note", agent: "acp:dsh" }, parent).pipe(
        Effect.provideService(Permissions.Permissions, yield* Permissions.make({ mode: "default" })),
        Effect.provideService(Asker.Asker, { ask: (q) => Effect.sync(() => asked.push(q)).pipe(Effect.as({ allow: true, by: "user" })) })
      )

      assert.strictEqual(result.status, "completed", result.notes)
      assert.strictEqual(result.output, "The note is written.")
      assert.deepStrictEqual(result.usage, { inputTokens: 130, outputTokens: 17, totalTokens: 147 })
      assert.strictEqual(result.provider, "acp")
      // The parent's rules asked (default mode), naming the child and its call.
      assert.deepStrictEqual(asked.map((a) => [a.subject, a.agent]), [["Edit(note.md)", result.handle]])
      assert.strictEqual(readFileSync(join(cwd, "note.md"), "utf8"), "# from the child\n")
      // The child really used the server, with the credentials passed explicitly.
      assert.strictEqual(server.requests.length, 2)
      assert.strictEqual(server.requests[0]?.headers.authorization, "Bearer sk-child")
      // The transcript is on disk: the prompt, the tool run, the permission, usage and the end.
      const dir = join(session.location, "agents", result.handle)
      const wire = jsonLines(join(dir, "wire.jsonl"))
      assert.deepStrictEqual(wire.map((r) => r.type), ["turn-start", "message", "message", "tool-call", "permission", "tool-result", "message", "usage", "turn-end"])
      assert.strictEqual(wire.find((r) => r.type === "tool-call")?.name, "Write")
      assert.deepInclude(wire.find((r) => r.type === "permission"), { subject: "Edit(note.md)", decision: "allowed", via: "asked", by: "user", remember: "once" })
      assert.include(String(wire.find((r) => r.type === "tool-result")?.output), "note.md")
      assert.deepStrictEqual(wire.at(-1), { ...wire.at(-1), status: "completed", result: "The note is written." })
      const meta = JSON.parse(readFileSync(join(dir, "meta.json"), "utf8")) as Record<string, unknown>
      assert.strictEqual(meta.status, "completed")
      assert.include(String(meta.command), "acp --model openai:gpt-fake")
      // The child kept its own state under the parent's session, scrubbed of the secret.
      const childHome = join(dir, "dsh-home")
      assert.include(readFileSync(join(childHome, "config.toml"), "utf8"), "max_depth = 1")
    }).pipe(Effect.scoped), 30_000)
})

describe("dsh run delegating over ACP", () => {
  vitestIt("offers acp:dsh and config.toml's [acp.agents.*] to the subagent tool", async () => {
    const script = join(tempDir("dsh-acp-script-"), "script.json")
    writeFileSync(script, JSON.stringify({
      rules: [
        { when: { lastUser: "^delegate to (\\S+)", step: 0 }, reply: { toolCalls: [{ name: "subagent", arguments: { description: "remote echo", prompt: "CHILD ping", agent: "{{1}}" } }] } },
        { when: { lastUser: "^delegate", step: 1 }, reply: { text: "Parent got: {{lastTool|firstLine}}" } },
        { when: { lastUser: "^CHILD (.*)" }, reply: { text: "child says {{1}}", usage: { input: 7, output: 3 } } }
      ]
    }))
    const config = [
      "[acp.agents.echo]",
      `command = ${JSON.stringify(process.execPath)}`,
      `args = [${JSON.stringify(CLI_MAIN)}, "acp", "--model", ${JSON.stringify(`scripted:${script}`)}]`,
      "description = \"another ACP agent (here: dsh again)\"",
      ""
    ].join("\n")
    for (const agent of ["acp:dsh", "acp:echo"]) {
      const home = makeHome(config)
      const r = await runDsh(["run", "--allow", "subagent", "--model", `scripted:${script}`, "--output-format", "json", `delegate to ${agent}`], { env: { DSH_HOME: home } })
      expect(r.stderr).toBe("")
      expect(r.code).toBe(0)
      const out = JSON.parse(r.stdout) as { result: string; subagents: Array<{ agent: string; provider: string; status: string }> }
      expect(out.result).toBe("Parent got: child says ping")
      expect(out.subagents).toEqual([{ name: agent.replace(":", "-") + "-1", agent, provider: "acp", status: "completed" }])
    }
  }, 30_000)
})
