import * as Path from "node:path"
import { Effect } from "effect"
import * as Fs from "./internal/Fs.ts"

/**
 * Enabled plugins, as Kimi Code and Claude Code read them: a plugin is a directory whose manifest
 * (`plugin.json`, or Claude Code's `.claude-plugin/plugin.json`; optional) names its agent
 * directories or files (`agents`, default the plugin's `agents/`) and its instructions
 * (`instructions`, default `INSTRUCTIONS.md`). The agents join
 * discovery at the plugin scope; the instructions become `${plugin_sections}`. A broken
 * manifest or an unreadable file is a warning, never a failed resolution.
 */

export interface PluginInstruction {
  readonly plugin: string
  readonly text: string
}

export interface LoadedPlugins {
  readonly agentDirs: ReadonlyArray<string>
  readonly instructions: ReadonlyArray<PluginInstruction>
  readonly warnings: ReadonlyArray<string>
}

/** One plugin's instructions are bounded like `AGENTS.md`: a prompt must not grow with a file. */
export const PLUGIN_INSTRUCTIONS_CHARS = 16 * 1024

const stringList = (value: unknown): ReadonlyArray<string> | undefined =>
  typeof value === "string" ? [value] : Array.isArray(value) && value.every((v) => typeof v === "string") ? value : undefined

/** Kimi Code's manifest (`plugin.json`), else Claude Code's (`.claude-plugin/plugin.json`). */
const findManifest = (root: string) =>
  Effect.gen(function*() {
    const kimi = Path.join(root, "plugin.json")
    const claude = Path.join(root, ".claude-plugin", "plugin.json")
    const useClaude = !(yield* Fs.exists(kimi)) && (yield* Fs.exists(claude))
    return { manifestPath: useClaude ? claude : kimi, claude: useClaude }
  })

const loadOne = (root: string, warnings: Array<string>) =>
  Effect.gen(function*() {
    const { manifestPath, claude } = yield* findManifest(root)
    const read = yield* Fs.readText(manifestPath).pipe(Effect.result)
    let manifest: Record<string, unknown> = {}
    if (read._tag === "Success") {
      const parsed = yield* Effect.try({ try: () => JSON.parse(read.success) as unknown, catch: (e) => String(e) }).pipe(Effect.result)
      if (parsed._tag === "Success" && typeof parsed.success === "object" && parsed.success !== null && !Array.isArray(parsed.success)) {
        manifest = parsed.success as Record<string, unknown>
      } else warnings.push(`${manifestPath}: not a JSON object; the plugin's defaults are used`)
    } else if (!Fs.isMissing(read.failure)) {
      warnings.push(`${manifestPath}: cannot read the manifest (${read.failure.message}); the plugin's defaults are used`)
    } else if (!(yield* Fs.exists(root))) {
      warnings.push(`${root}: plugin directory not found`)
      return { agentDirs: [], instruction: undefined }
    }
    const name = typeof manifest.name === "string" && manifest.name.trim() !== "" ? manifest.name.trim() : Path.basename(root)
    const agents = stringList(manifest.agents)
    if (manifest.agents !== undefined && agents === undefined) warnings.push(`${manifestPath}: "agents" must be a path or a list of paths; agents/ is used`)
    // Claude Code's `agents` (directories or files) add to the plugin's `agents/`; Kimi's replace it.
    const agentDirs = [...new Set((claude ? ["agents", ...(agents ?? [])] : agents ?? ["agents"]).map((d) => Path.resolve(root, d)))]
    const instructionsFile = Path.resolve(root, typeof manifest.instructions === "string" ? manifest.instructions : "INSTRUCTIONS.md")
    const text = yield* Fs.readBounded(instructionsFile, PLUGIN_INSTRUCTIONS_CHARS * 4).pipe(Effect.result)
    if (text._tag === "Failure") {
      if (!Fs.isMissing(text.failure) || manifest.instructions !== undefined) {
        warnings.push(`${instructionsFile}: cannot read the plugin's instructions (${text.failure.message})`)
      }
      return { agentDirs, instruction: undefined }
    }
    const decoded = new TextDecoder().decode(text.success.bytes).replace(/\r\n?/g, "\n").trim()
    const clipped = decoded.length > PLUGIN_INSTRUCTIONS_CHARS ? `${decoded.slice(0, PLUGIN_INSTRUCTIONS_CHARS)}\n... (truncated)` : decoded
    return { agentDirs, instruction: clipped === "" ? undefined : { plugin: name, text: clipped } }
  })

/** The plugins at `roots` (resolved under `cwd`), in the order given. */
export const loadPlugins = (roots: ReadonlyArray<string>, cwd: string): Effect.Effect<LoadedPlugins> =>
  Effect.gen(function*() {
    const warnings: Array<string> = []
    const loaded = yield* Effect.forEach([...new Set(roots.map((r) => Path.resolve(cwd, r)))], (root) => loadOne(root, warnings))
    return {
      agentDirs: loaded.flatMap((p) => p.agentDirs),
      instructions: loaded.flatMap((p) => (p.instruction === undefined ? [] : [p.instruction])),
      warnings
    }
  })
