import { FileSessionStore } from "@dsh/session"
import { Subagents, SubagentTree, type Vocabulary } from "@dsh/subagent"
import { Fixtures } from "@dsh/subagent/testing"
import { LocalProcessLauncher } from "@dsh/subprocess"
import { Effect, type Scope, Stream } from "effect"
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { AcpAgentConfig, AcpProvider } from "../src/index.ts"

/** The built CLI bundle (`npm test` builds everything first). */
export const CLI_MAIN = resolve(import.meta.dirname, "../../cli/dist/main.js")
if (!existsSync(CLI_MAIN)) throw new Error(`${CLI_MAIN} is missing: build the CLI first (npx tsc -b && node scripts/build.mjs)`)

export const fixture = (name: string): string => resolve(import.meta.dirname, "fixtures", name)

export const tempDir = (prefix = "dsh-acp-test-"): string => mkdtempSync(join(tmpdir(), prefix))

/** Writes a scripted-model script to a temp file; returns the `scripted:<path>` spec's path part. */
export const writeScript = (script: unknown): string => {
  const file = join(tempDir("dsh-acp-script-"), "script.json")
  writeFileSync(file, JSON.stringify(script))
  return file
}

/** A parent model that only names itself: the parent never calls it, `acp:dsh` children inherit its spec. */
export const namedModel = (provider: string, model: string): Vocabulary.ParentInfo["model"] => ({
  provider,
  model,
  stream: () => Stream.empty,
  generate: () => Effect.die("the parent model is not called in these tests")
})

/** `acp:dsh` running the built CLI with this Node. */
export const dshAgent: AcpAgentConfig.AcpAgentConfig = AcpAgentConfig.dshAcpAgent({ command: process.execPath, args: [CLI_MAIN] })

/** `acp:dsh` whose Bash is not sandboxed: for tests that watch its processes from outside. */
export const unconfinedDshAgent: AcpAgentConfig.AcpAgentConfig = AcpAgentConfig.dshAcpAgent({
  command: process.execPath,
  args: [CLI_MAIN],
  sandbox: { mode: "off", network: false, writable: [] }
})

/** A fixture script run as an ACP agent `acp:<name>`. */
export const scriptAgent = (name: string, file: string): AcpAgentConfig.AcpAgentConfig => ({
  name,
  description: `fixture ${file}`,
  command: process.execPath,
  args: [fixture(file)]
})

export interface TestEnv {
  readonly subagents: Subagents.SubagentsShape
  readonly parent: Vocabulary.ParentInfo
  readonly home: string
  readonly cwd: string
  readonly sessionLocation: string
}

/**
 * A parent context on the real file store and the local launcher, with the `acp` backend for
 * the given agents; its model is `scripted:<script>` so `acp:dsh` children run that script.
 */
export const makeEnv = (options: {
  readonly agents: ReadonlyArray<AcpAgentConfig.AcpAgentConfig>
  readonly script?: string | undefined
  readonly provider?: Partial<AcpProvider.AcpProviderOptions> | undefined
  readonly cwd?: string | undefined
}): Effect.Effect<TestEnv, unknown, Scope.Scope> =>
  Effect.gen(function*() {
    const home = tempDir("dsh-acp-home-")
    const cwd = options.cwd ?? tempDir("dsh-acp-cwd-")
    const store = yield* FileSessionStore.make({ home })
    const session = yield* store.create({ agent: "main", cwd, model: "scripted" })
    const tree = yield* SubagentTree.make({ session, childContext: () => Effect.succeed({ tools: [], systemPrompt: "" }) })
    const provider = yield* AcpProvider.make({ agents: options.agents, parentEnv: { ...process.env }, ...options.provider }).pipe(
      Effect.provide(LocalProcessLauncher.layer({ killGrace: "1 second" }))
    )
    const subagents = yield* Subagents.make({ tree, providers: [provider], types: AcpAgentConfig.acpAgentTypes(options.agents) })
    const parent: Vocabulary.ParentInfo = Fixtures.testParent(namedModel("scripted", options.script ?? "demo"), { cwd })
    return { subagents, parent, home, cwd, sessionLocation: session.location }
  })

export const readJsonLines = (file: string): Array<Record<string, unknown>> =>
  readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as Record<string, unknown>)

