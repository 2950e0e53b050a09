import { AgentHost } from "@dsh/agent"
import { ConfigFile } from "@dsh/harness"
import { FileSessionStore, StoreTrouble } from "@dsh/session"
import { Asker } from "@dsh/tools"
import { PassThrough } from "node:stream"
import { LocalProcessLauncher } from "@dsh/subprocess"
import { Effect, Layer } from "effect"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { DshDoctor, DshHarness, DshListing, DshRun } from "../src/dsh.ts"

/** A `$DSH_HOME` with config.toml, one user agent file and a scripted lead that delegates to it. */
const home = (toml: string) => {
  const dir = mkdtempSync(join(tmpdir(), "dsh-kit-dsh-"))
  mkdirSync(join(dir, "agents"))
  writeFileSync(join(dir, "agents", "helper.md"), "---\nname: helper\ndescription: helps with one task\n---\nYou help.\n")
  writeFileSync(join(dir, "agents", "broken.md"), "---\nname: [not, a, name]\n---\nbody\n")
  writeFileSync(join(dir, "lead.json"), JSON.stringify({
    rules: [
      { when: { step: 0, lastUser: "delegate" }, reply: { toolCalls: [{ name: "subagent", arguments: { description: "task", prompt: "the task", agent: "helper" } }] } },
      { when: { lastUser: "the task" }, reply: { text: "helper did it" } }
    ],
    fallback: { text: "lead is done" }
  }))
  writeFileSync(join(dir, "config.toml"), `model = "scripted:${join(dir, "lead.json")}"\n${toml}`)
  return dir
}
const place = (dir: string) => ({ env: { HOME: dir }, cwd: dir, home: dir })
const install: DshHarness.DshInstall = { self: { command: process.execPath, args: ["-e", "process.exit(3)"] } }
const config = (dir: string) => Effect.runPromise(ConfigFile.loadHarnessConfigFile(join(dir, "config.toml")))

describe("@dsh/kit/dsh: dsh's own harness as a library", () => {
  it("runs a session whose lead delegates to a user agent file, with config.toml's model, rules and the file store", async () => {
    const dir = home("[permissions]\nallow = [\"subagent(helper)\"]\n")
    const settings = await Effect.runPromise(DshHarness.settings(place(dir), await config(dir)))
    const layer = DshHarness.layer(place(dir), settings, install).pipe(
      Layer.provide(Layer.mergeAll(FileSessionStore.layer({ home: dir }), LocalProcessLauncher.layer()))
    )
    const summary = await Effect.runPromise(Effect.gen(function*() {
      const host = yield* AgentHost.AgentHost
      const { id } = yield* host.createSession({ cwd: dir })
      return yield* host.prompt({ sessionId: id, prompt: "delegate please" })
    }).pipe(Effect.provide(layer), Effect.scoped))
    expect(summary.status).toBe("completed")
    expect(summary.result).toBe("lead is done")
    expect(summary.subagents.map((c) => [c.name, c.status])).toEqual([["helper-1", "completed"]])
  })

  it("refuses a config whose model setting no adapter serves, naming the key", async () => {
    const dir = home("[subagents]\nmodel = \"gemini-3-pro\"\n")
    const error = await Effect.runPromise(Effect.flip(DshHarness.settings(place(dir), await config(dir))))
    expect(error.message).toContain("[subagents] model")
    expect(error.message).toContain("gemini-3-pro")
  })

  it("lists agents, skipped files with their reason and invalid [acp.agents.*] entries, starting nothing", async () => {
    const dir = home("[acp.agents.vendor]\ndescription = \"no command\"\n")
    const doc = await Effect.runPromise(DshListing.listing(place(dir), await config(dir), install, { cwd: dir }).pipe(Effect.provide(LocalProcessLauncher.layer())))
    expect(doc.agents.map((a) => a.name)).toContain("helper")
    expect(doc.skipped.map((s) => s.path)).toContain(join(dir, "agents", "broken.md"))
    expect(doc.acpAgents).toEqual([expect.objectContaining({ name: "vendor", status: "invalid" })])
    expect(doc.acpAgents[0]!.reason).toContain("command")
    const lines = DshListing.lines(doc)
    expect(lines).toContain(`skipped ${join(dir, "agents", "broken.md")}: ${doc.skipped.find((s) => s.path.endsWith("broken.md"))!.reason}`)
    expect(lines.slice(lines.indexOf("ACP agents (config.toml [acp.agents.*]):") + 1)[0]).toMatch(/^acp:vendor +invalid +.*: .*command/)
  })

  it("runs a prompt as dsh run does: the summary in the asked format; a gate that fails is a failed run", async () => {
    const dir = home("[permissions]\nallow = [\"subagent(helper)\"]\n")
    const settings = await Effect.runPromise(DshHarness.settings(place(dir), await config(dir)))
    const layer = DshHarness.layer(place(dir), settings, install).pipe(
      Layer.provideMerge(Layer.mergeAll(FileSessionStore.layer({ home: dir }), LocalProcessLauncher.layer(), Layer.succeed(StoreTrouble.StoreTrouble, StoreTrouble.make())))
    )
    const terminal = () => {
      const stdout = new PassThrough()
      const chunks: Array<string> = []
      stdout.on("data", (c) => chunks.push(String(c)))
      return { env: {}, home: dir, stdout, stderr: new PassThrough(), stdin: new PassThrough(), interrupted: Effect.never, text: () => chunks.join("") }
    }
    const ok = terminal()
    const request = { prompt: "delegate please", format: "json" as const, cwd: dir }
    await Effect.runPromise(DshRun.run(request, ok, Asker.nobodyAsker()).pipe(Effect.provide(layer), Effect.scoped))
    expect(JSON.parse(ok.text())).toMatchObject({ status: "completed", result: "lead is done", subagents: [{ name: "helper-1", status: "completed" }] })

    const refused = terminal()
    const failed = await Effect.runPromise(Effect.flip(DshRun.run(request, refused, Asker.nobodyAsker())).pipe(
      Effect.provideService(DshRun.RunGate, Effect.fail({ message: "no runner" })),
      Effect.provide(layer),
      Effect.scoped
    ))
    expect(failed).toMatchObject({ _tag: "RunFailed", message: "no runner" })
    expect(JSON.parse(refused.text())).toMatchObject({ status: "failed", result: "" })
  })

  it("doctor reports a config that does not read by its first bad key, and the sandbox it would use", async () => {
    const dir = home("[sandbox]\nmode = \"sometimes\"\n")
    const report = await Effect.runPromise(DshDoctor.report(place(dir)).pipe(Effect.provide(LocalProcessLauncher.layer())))
    expect(report.config.error).toContain("[sandbox] mode")
    expect(report.sandbox.mode).toBe("auto")
    const lines = DshDoctor.lines(report, ["resident    off"])
    expect(lines[0]).toBe(`dsh ${report.version}`)
    expect(lines).toContain("resident    off")
    expect(lines.find((l) => l.startsWith("config "))).toContain("[sandbox] mode")
  })
})
