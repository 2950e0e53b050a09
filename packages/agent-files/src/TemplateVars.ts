import * as Path from "node:path"
import { Effect } from "effect"
import { findProjectRoot } from "./Discovery.ts"
import * as Fs from "./internal/Fs.ts"
import type { Template } from "@dsh/agent"

/**
 * Computing the standard template variables from the live context. Every input that reflects
 * the machine (time, environment, platform, homes) is passed in, so renders are reproducible in
 * tests. Every value is bounded: a prompt must not grow with the size of the repository.
 */

export interface CollectTemplateVarsOptions {
  readonly cwd: string
  readonly now: Date
  /** The environment (for `SHELL` / `ComSpec`). */
  readonly env: Readonly<Record<string, string | undefined>>
  /** Defaults to the running platform. */
  readonly platform?: NodeJS.Platform | undefined
  /** Defaults to the nearest ancestor of `cwd` containing `.git`. */
  readonly projectRoot?: string | undefined
  /** For the global `$DSH_HOME/AGENTS.md`. */
  readonly dshHome?: string | undefined
  /** For the cross-tool `~/.agents/AGENTS.md`. */
  readonly userHome?: string | undefined
  /** Already rendered Agent Skills content; empty or undefined when the Skill tool is unavailable. */
  readonly skills?: string | undefined
  readonly additionalDirs?: ReadonlyArray<string> | undefined
  readonly pluginInstructions?: ReadonlyArray<{ readonly plugin: string; readonly text: string }> | undefined
}

/** Bounds of `${cwd_listing}` and `${agents_md}`. */
export const TEMPLATE_LIMITS = {
  listingTopEntries: 100,
  listingChildEntries: 20,
  listingChars: 16 * 1024,
  agentsMdChars: 32 * 1024
} as const

const LISTING_SKIPPED = new Set([".git", "node_modules"])

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

/** Two levels of `dir`, directories marked with `/`, long directories cut with "... and N more". */
export const listDirectory = (dir: string): Effect.Effect<string> =>
  Effect.gen(function*() {
    const top = yield* Fs.readdir(dir).pipe(Effect.orElseSucceed(() => []))
    const entries = [...top].sort(byName)
    const shown = entries.slice(0, TEMPLATE_LIMITS.listingTopEntries)
    // The second level is read concurrently: a prompt build should not wait on one readdir at a time.
    const childLists = yield* Effect.forEach(shown, (entry) =>
      entry.isDirectory() && !LISTING_SKIPPED.has(entry.name)
        ? Fs.readdir(Path.join(dir, entry.name)).pipe(Effect.map((xs) => [...xs].sort(byName)), Effect.orElseSucceed(() => []))
        : Effect.succeed(undefined), { concurrency: 16 })
    const lines: Array<string> = []
    shown.forEach((entry, i) => {
      const isDir = entry.isDirectory()
      lines.push(isDir ? `${entry.name}/` : entry.name)
      const children = childLists[i]
      if (children === undefined) return
      for (const child of children.slice(0, TEMPLATE_LIMITS.listingChildEntries)) {
        lines.push(`  ${child.name}${child.isDirectory() ? "/" : ""}`)
      }
      if (children.length > TEMPLATE_LIMITS.listingChildEntries) {
        lines.push(`  ... and ${children.length - TEMPLATE_LIMITS.listingChildEntries} more`)
      }
    })
    if (entries.length > TEMPLATE_LIMITS.listingTopEntries) {
      lines.push(`... and ${entries.length - TEMPLATE_LIMITS.listingTopEntries} more`)
    }
    const text = lines.join("\n")
    return text.length <= TEMPLATE_LIMITS.listingChars
      ? text
      : text.slice(0, TEMPLATE_LIMITS.listingChars).replace(/\n[^\n]*$/, "") + "\n... (listing truncated)"
  })

/** The instruction files of each place, in order (openclaw's sub-agent context: AGENTS.md + TOOLS.md). */
export const INSTRUCTION_FILES: ReadonlyArray<string> = ["AGENTS.md", "TOOLS.md"]

/**
 * The instruction files that apply to `cwd`, general first: `$DSH_HOME/AGENTS.md` and
 * `TOOLS.md`, `~/.agents/AGENTS.md` and `TOOLS.md`, then `AGENTS.md`, `TOOLS.md`,
 * `.dsh/AGENTS.md` and `.dsh/TOOLS.md` in each directory from the project root down to `cwd`
 * (deeper files come later and take precedence). Bounded in total.
 */
export const collectAgentsMd = (options: {
  readonly cwd: string
  readonly projectRoot: string
  readonly dshHome?: string | undefined
  readonly userHome?: string | undefined
}): Effect.Effect<string> =>
  Effect.gen(function*() {
    const candidates: Array<string> = []
    // Each place holds AGENTS.md and then TOOLS.md (notes on the local tools), read alike.
    const both = (dir: string) => INSTRUCTION_FILES.map((name) => Path.join(dir, name))
    if (options.dshHome !== undefined) candidates.push(...both(options.dshHome))
    if (options.userHome !== undefined) candidates.push(...both(Path.join(options.userHome, ".agents")))
    const cwd = Path.resolve(options.cwd)
    const root = Path.resolve(options.projectRoot)
    const rel = Path.relative(root, cwd)
    const steps = rel === "" || rel.startsWith("..") || Path.isAbsolute(rel) ? [] : rel.split(Path.sep)
    const dirs = [root, ...steps.map((_, i) => Path.join(root, ...steps.slice(0, i + 1)))]
    for (const dir of dirs) candidates.push(...both(dir), ...both(Path.join(dir, ".dsh")))
    const parts: Array<string> = []
    let budget: number = TEMPLATE_LIMITS.agentsMdChars
    for (const path of [...new Set(candidates)]) {
      if (budget <= 0) break
      const read = yield* Fs.readBounded(path, budget * 4).pipe(Effect.option)
      if (read._tag === "None") continue
      const text = new TextDecoder().decode(read.value.bytes).replace(/\r\n?/g, "\n").trim()
      if (text === "" || text.includes("\u0000")) continue
      const clipped = text.length > budget ? `${text.slice(0, budget)}\n... (truncated)` : text
      budget -= clipped.length
      parts.push(`<!-- ${path} -->\n${clipped}`)
    }
    return parts.join("\n\n")
  })

const osName = (platform: NodeJS.Platform): string =>
  platform === "linux" ? "Linux" : platform === "darwin" ? "macOS" : platform === "win32" ? "Windows" : platform

const shellOf = (platform: NodeJS.Platform, env: Readonly<Record<string, string | undefined>>): string => {
  const path = platform === "win32" ? env.ComSpec ?? env.COMSPEC ?? "cmd.exe" : env.SHELL ?? "/bin/sh"
  return `${Path.basename(path).replace(/\.exe$/i, "")} (\`${path}\`)`
}

/** Computes every standard variable except `${base_prompt}` (bound by `renderAgentPrompt`). */
export const collectTemplateVars = (options: CollectTemplateVarsOptions): Effect.Effect<Template.TemplateVars> =>
  Effect.gen(function*() {
    const cwd = Path.resolve(options.cwd)
    const platform = options.platform ?? process.platform
    const projectRoot = options.projectRoot ?? (yield* findProjectRoot(cwd))
    const skills = options.skills?.trim() ?? ""
    const dirs = options.additionalDirs ?? []
    const additionalDirsInfo = dirs.map((d) => `- \`${d}\``).join("\n")
    const plugins = (options.pluginInstructions ?? []).filter((p) => p.text.trim() !== "")
    return {
      cwd,
      cwd_listing: yield* listDirectory(cwd),
      os: osName(platform),
      shell: shellOf(platform, options.env),
      now: options.now.toISOString(),
      agents_md: yield* collectAgentsMd({ cwd, projectRoot, dshHome: options.dshHome, userHome: options.userHome }),
      skills,
      skills_section: skills === ""
        ? ""
        : "# Skills\n\nSkills are reusable instructions and material for specialised tasks. Read a skill's `SKILL.md` " +
          "only when it is relevant to the task at hand.\n\n" + skills,
      additional_dirs_info: additionalDirsInfo,
      additional_dirs_section: dirs.length === 0
        ? ""
        : "## Additional Directories\n\nThese directories are part of the workspace too; you may read, search and " +
          "edit files in them:\n\n" + additionalDirsInfo,
      plugin_sections: plugins.length === 0
        ? ""
        : "# Plugin Instructions\n\n" + plugins.map((p) => `## ${p.plugin}\n\n${p.text.trim()}`).join("\n\n"),
      windows_notes: platform === "win32"
        ? "## Windows\n\nThe Bash tool runs a POSIX shell: write `/dev/null`, not `NUL`, and use forward slashes in paths."
        : ""
    }
  })
