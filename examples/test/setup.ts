// Global setup of the examples project: packs the workspace and installs the tarballs once per
// test run, into one app that every test file shares (`inject("app")`). The app is
// `examples/harness` plus what the README examples import; those examples are copied into its
// `readme/` directory, with a tsconfig that checks them under the harness's strict settings.
// A second, small app (`examples/no-runner`, with every package that has a `testing` entry) is
// installed once too, alongside the first: it must have no test runner at all, so it cannot
// share the first's node_modules.
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import type { TestProject } from "vitest/node"
import { dependenciesOf, installExamples, packWorkspace, ROOT, testingPackages } from "./support.ts"

declare module "vitest" {
  export interface ProvidedContext {
    /** The installed app: `examples/harness`, the README examples in `readme/`, each of EXTRA_EXAMPLES in `<name>/`. */
    app: string
    /** `examples/no-runner` installed with every package that has a `testing` entry, and no test runner. */
    noRunnerApp: string
    /** Every workspace package's packed tarball, by package name. */
    tarballs: Record<string, string>
  }
}

const README_EXAMPLES = join(ROOT, "examples", "readme")
/**
 * Example projects installed into the same app (each in its `<name>/` directory) by the same npm
 * install: their `@dsh/*` packages from the tarballs, the rest merged into the app's dependencies
 * (the first range named wins). Node resolves their imports from the app's `node_modules`.
 */
export const EXTRA_EXAMPLES = ["ai-sdk-model", "ai-sdk-loop", "openai-agents", "effect-ai", "mcp", "a2a"] as const

/**
 * The harness's strict settings for an example's top-level `.ts` files (`npx tsc` in its
 * directory), except skipLibCheck: the AI SDK's and the MCP SDK's own declarations do not
 * compile with it off (dsh's are checked so in `readme/`).
 */
const EXAMPLE_TSCONFIG = `${JSON.stringify({ extends: "../tsconfig.json", compilerOptions: { skipLibCheck: true }, include: ["*.ts"] }, null, 2)}\n`
const HARNESS_DEV = new Set(["@types/node", "typescript", "vitest"])

/** The example's dependencies: its `@dsh/*` packages, and the rest from the registry (what the harness has aside). */
const exampleDependencies = (dir: string) => {
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { dependencies?: Record<string, string>; devDependencies?: Record<string, string> }
  const all = Object.entries({ ...manifest.dependencies, ...manifest.devDependencies })
  return {
    packages: all.filter(([n]) => n.startsWith("@dsh/")).map(([n]) => n),
    registry: Object.fromEntries(all.filter(([n]) => !n.startsWith("@dsh/") && !HARNESS_DEV.has(n)))
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const tarballs = packWorkspace()
  const readme = dependenciesOf(README_EXAMPLES)
  const extras = EXTRA_EXAMPLES.map((name) => exampleDependencies(join(ROOT, "examples", name)))
  const registry: Record<string, string> = {}
  for (const deps of [readme, ...extras]) for (const [name, range] of Object.entries(deps.registry)) registry[name] ??= range
  const [app, noRunnerApp] = await installExamples(tarballs, [
    { example: "harness", options: { packages: ["@dsh/cli", ...readme.packages, ...extras.flatMap((e) => e.packages)], registry } },
    { example: "no-runner", options: { packages: testingPackages() } }
  ])
  for (const name of EXTRA_EXAMPLES) {
    cpSync(join(ROOT, "examples", name), join(app, name), { recursive: true, filter: (src) => !src.includes("node_modules") })
    // Examples without a tsconfig of their own are checked under the harness's strict settings.
    if (!existsSync(join(app, name, "tsconfig.json"))) writeFileSync(join(app, name, "tsconfig.json"), EXAMPLE_TSCONFIG)
  }
  const dir = join(app, "readme")
  for (const file of readdirSync(README_EXAMPLES).filter((f) => f.endsWith(".ts"))) {
    cpSync(join(README_EXAMPLES, file), join(dir, file))
  }
  // The harness's own settings (nodenext and bundler resolution, skipLibCheck off), for readme/*.ts.
  for (const name of ["tsconfig.json", "tsconfig.bundler.json"]) {
    writeFileSync(join(dir, name), `${JSON.stringify({ extends: `../${name}`, include: ["*.ts"] }, null, 2)}\n`)
  }
  project.provide("app", app)
  project.provide("noRunnerApp", noRunnerApp)
  project.provide("tarballs", Object.fromEntries(tarballs))
  return () => {
    rmSync(dirname(app), { recursive: true, force: true })
    rmSync(dirname(noRunnerApp), { recursive: true, force: true })
    rmSync(dirname([...tarballs.values()][0] ?? app), { recursive: true, force: true })
  }
}
