import { AgentHost } from "@dsh/agent"
import { ConfigFile } from "@dsh/harness"
import { SessionStore } from "@dsh/session"
import { LocalProcessLauncher } from "@dsh/subprocess"
import { Duration, Effect, Layer } from "effect"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { DshA2a, DshFlags, DshHarness, DshSessions, DshStore } from "../src/dsh.ts"

// What a harness with a command line like dsh's gets from @dsh/kit/dsh: the flags' checks, the
// store choice, the sessions listing and the A2A server, each over a real $DSH_HOME.

const home = (toml = "") => {
  const dir = mkdtempSync(join(tmpdir(), "dsh-kit-commands-"))
  mkdirSync(join(dir, "agents"))
  writeFileSync(join(dir, "agents", "helper.md"), "---\nname: helper\ndescription: helps with one task\nsecond line\n---\nYou help.\n")
  writeFileSync(join(dir, "lead.json"), JSON.stringify({ rules: [], fallback: { text: "lead is done" } }))
  writeFileSync(join(dir, "config.toml"), `model = "scripted:${join(dir, "lead.json")}"\n${toml}`)
  return dir
}
const place = (dir: string, env: NodeJS.ProcessEnv = {}) => ({ env: { HOME: dir, ...env }, cwd: dir, home: dir })
const install: DshHarness.DshInstall = { self: { command: process.execPath, args: ["-e", "process.exit(3)"] } }
const config = (dir: string) => Effect.runPromise(ConfigFile.loadHarnessConfigFile(join(dir, "config.toml")))
const failure = <A, E extends { readonly message: string }>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.flip(effect)).then((e) => e.message)

describe("DshFlags: dsh's flags checked", () => {
  it("reads permission flags and refuses a bad mode, a conflicting --yolo and a malformed rule, naming the flag", async () => {
    expect(await Effect.runPromise(DshFlags.permissions({ yolo: true, allow: ["Bash(git *)"] }))).toEqual({ mode: "bypass", allow: ["Bash(git *)"], deny: [] })
    expect(await failure(DshFlags.permissions({ "permission-mode": "loose" }))).toBe("--permission-mode must be one of default, acceptEdits, plan, bypass (got \"loose\")")
    expect(await failure(DshFlags.permissions({ "permission-mode": "plan", yolo: true }))).toContain("--yolo is --permission-mode bypass")
    expect(await failure(DshFlags.permissions({ deny: ["Bash("] }))).toMatch(/^--deny: /)
  })

  it("reads session flags: paths against the caller's directory, an agent only for a new session, one agent file", async () => {
    const read = await Effect.runPromise(DshFlags.session({ "agent-file": ["a.md"], cwd: "sub" }, "/work"))
    expect(read).toMatchObject({ cwd: "/work/sub", agentFile: "/work/a.md" })
    expect(await failure(DshFlags.session({ agent: "x", "agent-file": ["a.md"] }, "/w"))).toBe("use either --agent or --agent-file, not both")
    expect(await failure(DshFlags.session({ agent: "x", continue: true }, "/w"))).toContain("cannot be used with --session or --continue")
    expect(await failure(DshFlags.session({ "agent-file": ["a.md", "b.md"] }, "/w"))).toBe("--agent-file may be given once (got 2: a.md, b.md)")
  })

  it("reads positive integers, ages and directories", async () => {
    expect(await Effect.runPromise(DshFlags.positiveInteger("7", "--limit"))).toBe(7)
    expect(await Effect.runPromise(DshFlags.positiveInteger(undefined, "--limit"))).toBeUndefined()
    expect(await failure(DshFlags.positiveInteger("0", "--limit"))).toBe("--limit must be a positive integer (got \"0\")")
    expect(Duration.toMillis(await Effect.runPromise(DshFlags.age("2w", "--older-than")))).toBe(14 * 86_400_000)
    expect(await failure(DshFlags.age("0d", "--older-than"))).toContain("must be a positive age")
    expect(await failure(DshFlags.directory("/no/such/dir"))).toBe("--cwd /no/such/dir: no such directory")
  })
})

describe("DshStore: where sessions live", () => {
  it("takes the flag over DSH_STORE over config.toml, and a URL's store only for the cluster", async () => {
    const dir = home(`store = "configured"\n`)
    const cfg = await config(dir)
    expect(await Effect.runPromise(DshStore.choose(place(dir), cfg))).toMatchObject({ source: "store (config.toml)", spec: { _tag: "File", home: join(dir, "configured") } })
    expect(await Effect.runPromise(DshStore.choose(place(dir, { DSH_STORE: "postgres://u@h/db" }), cfg))).toMatchObject({ source: "DSH_STORE", spec: { _tag: "Postgres" } })
    const flagged = await Effect.runPromise(DshStore.choose(place(dir, { DSH_STORE: "postgres://u@h/db" }), cfg, "mine"))
    expect(flagged).toMatchObject({ source: "--store", spec: { _tag: "File", home: join(dir, "mine") } })
    expect(await failure(DshStore.clusterUrl(flagged, "runner"))).toBe(`runner needs a PostgreSQL store (--store postgres://…, DSH_STORE or store = in config.toml); --store is the directory ${join(dir, "mine")}`)
    expect(await failure(DshStore.choose(place(dir), cfg, "mysql://x"))).toMatch(/^--store /)
  })

  it("gives the chosen file store as a layer, and the sessions listing reads what a run left there", async () => {
    const dir = home()
    const cfg = await config(dir)
    const chosen = await Effect.runPromise(DshStore.choose(place(dir), cfg))
    const settings = await Effect.runPromise(DshHarness.settings(place(dir), cfg))
    const layer = DshHarness.layer(place(dir), settings, install).pipe(Layer.provideMerge(Layer.mergeAll(DshStore.layer(chosen.spec), LocalProcessLauncher.layer())))
    const rows = await Effect.runPromise(Effect.gen(function*() {
      const host = yield* AgentHost.AgentHost
      const { id } = yield* host.createSession({ cwd: dir })
      yield* host.prompt({ sessionId: id, prompt: "hello" })
      const store = yield* SessionStore.SessionStore
      yield* store.create({ id: "20261203T000000-broken00", cwd: dir, agent: "agent", model: "scripted" })
      writeFileSync(join(dir, "sessions", "20261203T000000-broken00", "state.json"), "{ not json")
      return yield* DshSessions.list
    }).pipe(Effect.provide(layer), Effect.scoped))
    const lines = DshSessions.lines(rows)
    expect(rows.find((r) => r.reason === undefined)).toMatchObject({ agent: "agent", status: "completed" })
    expect(rows.find((r) => r.reason !== undefined)).toMatchObject({ id: "20261203T000000-broken00", status: "unreadable" })
    expect(lines.some((l) => /completed {2}agent {2}\d{4}-/.test(l))).toBe(true)
    expect(DshSessions.lines([])).toEqual(["no sessions"])
  })
})

describe("DshA2a.serve: the main agent as an A2A agent", () => {
  it("serves a card whose skills are the delegable agents, on a free port of 127.0.0.1", async () => {
    const dir = home()
    const cfg = await config(dir)
    const settings = await Effect.runPromise(DshHarness.settings(place(dir), cfg))
    const card = await Effect.runPromise(Effect.gen(function*() {
      const served = yield* DshA2a.serve(place(dir), cfg, install, { host: "127.0.0.1", port: 0, create: { cwd: dir } })
      return yield* Effect.promise(() => fetch(`${served.url.replace(/\/$/, "")}/.well-known/agent-card.json`).then((r) => r.json() as Promise<{ readonly url: string; readonly skills: ReadonlyArray<{ name: string; description: string }> }>))
    }).pipe(Effect.scoped, Effect.provide(DshHarness.layer(place(dir), settings, install)), Effect.provide(Layer.mergeAll(DshStore.layer({ _tag: "File", home: dir }), LocalProcessLauncher.layer()))))
    expect(card.skills.map((s) => [s.name, s.description])).toContainEqual(["helper", "helps with one task"])
    expect(card.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+/)
  })

  it("refuses a token_env whose variable is unset, before it listens", async () => {
    const dir = home("[a2a.serve]\ntoken_env = \"A2A_TOKEN_UNSET\"\n")
    const cfg = await config(dir)
    const settings = await Effect.runPromise(DshHarness.settings(place(dir), cfg))
    const message = await failure(DshA2a.serve(place(dir), cfg, install, { host: "127.0.0.1", port: 0, create: { cwd: dir } }).pipe(
      Effect.scoped,
      Effect.provide(DshHarness.layer(place(dir), settings, install)),
      Effect.provide(Layer.mergeAll(DshStore.layer({ _tag: "File", home: dir }), LocalProcessLauncher.layer()))
    ))
    expect(message).toBe("[a2a.serve] token_env = \"A2A_TOKEN_UNSET\", but A2A_TOKEN_UNSET is not set")
  })
})
