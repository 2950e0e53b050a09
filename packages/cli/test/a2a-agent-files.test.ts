import { serveEchoAgent } from "@dsh/subagent-a2a/testing"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { makeHome, runDsh, tempDir } from "./support.ts"

// Gemini CLI remote agents (`kind: remote` agent files) as A2A types: a real A2A agent on
// 127.0.0.1, declared only by a file in the project's agent directory, not by config.toml.

const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const close of closers.splice(0)) await close()
})

/** A project (a git root) whose `.agents/agents/` holds the given files. */
const project = (files: Record<string, string>): string => {
  const root = tempDir("dsh-a2a-files-")
  mkdirSync(join(root, ".git"))
  mkdirSync(join(root, ".agents", "agents"), { recursive: true })
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, ".agents", "agents", name), text)
  return root
}

const remoteFile = (name: string, card: string) => `---\nkind: remote\nname: ${name}\ndescription: an echo agent over A2A\n${card}\n---\n`

/** The parent: `delegate AGENT PROMPT` → subagent, then its result. */
const parentScript = () => {
  const file = join(tempDir("dsh-a2a-files-script-"), "script.json")
  writeFileSync(file, JSON.stringify({
    rules: [
      { when: { lastUser: "^delegate (\\S+) (.*)$", step: 0 }, reply: { toolCalls: [{ name: "subagent", arguments: { description: "remote", prompt: "{{2}}", agent: "{{1}}" } }] } },
      { when: { lastUser: "^delegate", step: 1 }, reply: { text: "Parent got: {{lastTool|firstLine}}" } }
    ]
  }))
  return file
}

interface Listing {
  readonly agents: ReadonlyArray<{ readonly name: string }>
  readonly skipped: ReadonlyArray<{ readonly path: string; readonly reason: string }>
  readonly shadowed: ReadonlyArray<{ readonly path: string; readonly name: string; readonly by: string }>
  readonly a2aAgents: ReadonlyArray<{ readonly name: string; readonly url: string; readonly status: string; readonly reason?: string; readonly source?: string }>
}

describe("Gemini CLI remote agent files as A2A agents", { timeout: 90_000 }, () => {
  it("dsh agents list --json lists each under a2aAgents with its source; config.toml wins a name; an unreadable card is invalid with its reason", async () => {
    const server = await serveEchoAgent()
    closers.push(server.close)
    // The card inline, as Gemini CLI's agent_card_json carries it (the served v0.3 card).
    const card = await (await fetch(`${server.url}.well-known/agent-card.json`)).text()
    const root = project({
      "remote-echo.md": remoteFile("remote_echo", `agent_card_url: ${server.url}.well-known/agent-card.json`),
      "inline-echo.md": remoteFile("inline-echo", `agent_card_json: |\n  ${card}`),
      "gone.md": remoteFile("gone", "agent_card_url: http://127.0.0.1:1/card.json"),
      "taken.md": remoteFile("taken", "agent_card_url: http://127.0.0.1:1/card.json")
    })
    const dir = join(root, ".agents", "agents")
    const home = makeHome(`[a2a.agents.taken]\nurl = "${server.url}"\n`)
    const r = await runDsh(["agents", "list", "--json"], { cwd: root, env: { DSH_HOME: home } })
    expect(r.code, r.stderr).toBe(0)
    const doc = JSON.parse(r.stdout) as Listing
    const byName = new Map(doc.a2aAgents.map((a) => [a.name, a]))
    // config.toml's entries first, then the files'.
    expect(doc.a2aAgents[0]?.name).toBe("taken")
    expect([...byName.keys()].sort()).toEqual(["gone", "inline-echo", "remote-echo", "taken"])
    expect(byName.get("taken")).toEqual({ name: "taken", url: server.url, status: "ok" })
    expect(byName.get("remote-echo")).toEqual({ name: "remote-echo", url: `${server.url}.well-known/agent-card.json`, status: "ok", source: join(dir, "remote-echo.md") })
    expect(byName.get("inline-echo")).toEqual({ name: "inline-echo", url: server.url, status: "ok", source: join(dir, "inline-echo.md") })
    expect(byName.get("gone")).toMatchObject({ name: "gone", status: "invalid", source: join(dir, "gone.md") })
    expect(byName.get("gone")!.reason).toContain("a2a:gone: cannot read its agent card at http://127.0.0.1:1/card.json")
    // The file config.toml outranks is shadowed by that entry; none is skipped or a prompt agent.
    expect(doc.shadowed).toContainEqual({ path: join(dir, "taken.md"), name: "a2a:taken", by: "config:a2a.agents.taken" })
    expect(doc.skipped.filter((s) => s.path.startsWith(dir))).toEqual([])
    expect(doc.agents.map((a) => a.name)).not.toContain("remote-echo")
  })

  it("dsh run --allow subagent delegates to a2a:<name> of a kind: remote file and gets the remote agent's answer", async () => {
    const server = await serveEchoAgent()
    closers.push(server.close)
    const card = await (await fetch(`${server.url}.well-known/agent-card.json`)).text()
    const root = project({
      "remote-echo.md": remoteFile("remote-echo", `agent_card_url: ${server.url}`),
      "inline-echo.md": remoteFile("inline_echo", `agent_card_json: |\n  ${card}`)
    })
    const home = makeHome()
    for (const agent of ["a2a:remote-echo", "a2a:inline-echo"]) {
      const r = await runDsh(["run", "--allow", "subagent", "--output-format", "json", "--model", `scripted:${parentScript()}`, `delegate ${agent} echo hello from ${agent}`], {
        cwd: root,
        env: { DSH_HOME: home, DSH_RESIDENT: "0" }
      })
      expect(r.code, r.stderr).toBe(0)
      const doc = JSON.parse(r.stdout) as { result: string; subagents: Array<{ agent: string; provider: string; status: string }> }
      expect(doc.result).toBe(`Parent got: hello from ${agent}`)
      expect(doc.subagents).toMatchObject([{ agent, provider: "a2a", status: "completed" }])
    }
  })
})
