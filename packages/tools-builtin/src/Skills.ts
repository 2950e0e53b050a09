import { Tool } from "@dsh/tools"
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { readdir, readFile, stat } from "node:fs/promises"
import * as Path from "node:path"
import { parse as parseYaml } from "yaml"
import * as z from "zod"

/**
 * Agent Skills: a folder with a `SKILL.md` (YAML frontmatter `name`, `description`, then the
 * instructions) and any files it refers to. Only names and descriptions go into the prompt; the
 * `Skill` tool loads one when the model decides it applies. Skills are reference material like
 * `AGENTS.md`, never a system prompt, so project skills load without the project being trusted.
 */
export interface Skill {
  readonly name: string
  readonly description: string
  /** The skill's folder. */
  readonly dir: string
  readonly scope: "project" | "user" | "extra"
}

/** Where skills are looked for: project folders first (they win a name clash), then the user's. */
export interface SkillRoots {
  /** `$DSH_HOME` (`skills/`). */
  readonly dshHome?: string | undefined
  /** The OS home (`~/.agents/skills/`). */
  readonly userHome?: string | undefined
  /** More folders of skills (e.g. of a trusted project or a team), after the project's. */
  readonly extraDirs?: ReadonlyArray<string> | undefined
}

export const SKILL_LIMITS = { skillMdBytes: 64 * 1024, descriptionChars: 1024, files: 200, skills: 200 } as const

/** The nearest ancestor of `cwd` holding `.git` (else `cwd`): where the project's skills live. */
const projectRootOf = (cwd: string): string => {
  for (let dir = Path.resolve(cwd);;) {
    if (existsSync(Path.join(dir, ".git"))) return dir
    const parent = Path.dirname(dir)
    if (parent === dir) return Path.resolve(cwd)
    dir = parent
  }
}

/** The skill folders that apply to `cwd`, most specific first. */
export const skillDirs = (cwd: string, roots: SkillRoots): ReadonlyArray<{ readonly dir: string; readonly scope: Skill["scope"] }> => {
  const root = projectRootOf(cwd)
  const here = Path.resolve(cwd)
  const project = [...new Set([here, root])].flatMap((d) => [Path.join(d, ".agents", "skills"), Path.join(d, ".dsh", "skills")])
  return [
    ...project.map((dir) => ({ dir, scope: "project" as const })),
    ...(roots.extraDirs ?? []).map((dir) => ({ dir: Path.resolve(here, dir), scope: "extra" as const })),
    ...(roots.userHome === undefined ? [] : [{ dir: Path.join(roots.userHome, ".agents", "skills"), scope: "user" as const }]),
    ...(roots.dshHome === undefined ? [] : [{ dir: Path.join(roots.dshHome, "skills"), scope: "user" as const }])
  ]
}

const splitFrontmatter = (text: string): { readonly data: Record<string, unknown>; readonly body: string } | undefined => {
  const match = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text)
  if (match === null) return { data: {}, body: text }
  try {
    const data: unknown = parseYaml(match[1]!)
    return { data: data !== null && typeof data === "object" ? (data as Record<string, unknown>) : {}, body: text.slice(match[0].length) }
  } catch {
    return undefined
  }
}

const readSkillMd = (dir: string) =>
  Effect.tryPromise(async () => {
    const path = Path.join(dir, "SKILL.md")
    const info = await stat(path)
    if (!info.isFile() || info.size > SKILL_LIMITS.skillMdBytes) return undefined
    return splitFrontmatter(await readFile(path, "utf8"))
  }).pipe(Effect.orElseSucceed(() => undefined))

/** Every skill under the roots for `cwd`; a folder without a readable `SKILL.md` or a description is skipped. */
export const discoverSkills = (cwd: string, roots: SkillRoots): Effect.Effect<ReadonlyArray<Skill>> =>
  Effect.gen(function*() {
    const found = new Map<string, Skill>()
    for (const { dir, scope } of skillDirs(cwd, roots)) {
      const entries = yield* Effect.tryPromise(() => readdir(dir, { withFileTypes: true })).pipe(Effect.orElseSucceed(() => []))
      for (const entry of [...entries].sort((a, b) => (a.name < b.name ? -1 : 1))) {
        if (!entry.isDirectory() || found.size >= SKILL_LIMITS.skills) continue
        const skillDir = Path.join(dir, entry.name)
        const md = yield* readSkillMd(skillDir)
        if (md === undefined) continue
        const name = typeof md.data.name === "string" && md.data.name.trim() !== "" ? md.data.name.trim() : entry.name
        const description = typeof md.data.description === "string" ? md.data.description.trim() : ""
        if (description === "" || found.has(name)) continue
        found.set(name, { name, description: description.slice(0, SKILL_LIMITS.descriptionChars), dir: skillDir, scope })
      }
    }
    return [...found.values()]
  })

/** The list the prompt's `${skills}` holds: one line per skill, name and description. */
export const renderSkillList = (skills: ReadonlyArray<Skill>): string =>
  skills.length === 0
    ? ""
    : "Load a skill with the `Skill` tool (`{\"name\": \"…\"}`) before following it.\n\n" +
      skills.map((s) => `- \`${s.name}\`: ${s.description.replace(/\s+/g, " ")}`).join("\n")

/** The folder's files (relative, bounded), so the model can Read what the skill refers to. */
const listFiles = (dir: string): Effect.Effect<ReadonlyArray<string>> =>
  Effect.tryPromise(async () => {
    const out: Array<string> = []
    const walk = async (rel: string): Promise<void> => {
      const entries = await readdir(Path.join(dir, rel), { withFileTypes: true })
      for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
        if (out.length >= SKILL_LIMITS.files) return
        const path = rel === "" ? e.name : `${rel}/${e.name}`
        if (e.isDirectory()) await walk(path)
        else if (e.isFile()) out.push(path)
      }
    }
    await walk("")
    return out
  }).pipe(Effect.orElseSucceed(() => []))

/** `Skill`: loads one skill by name (its `SKILL.md` body and the folder's files). */
export const makeSkillTool = (roots: SkillRoots) =>
  Tool.defineTool({
    name: "Skill",
    description: [
      "Load an Agent Skill by name: returns its SKILL.md instructions and the files of its folder (read them with",
      "Read when the instructions refer to them). The available skills are listed in your instructions."
    ].join(" "),
    parameters: z.object({ name: z.string().min(1).describe("The skill's name, as listed.") }),
    needsApproval: false,
    execute: (params, context) =>
      Effect.gen(function*() {
        const skills = yield* discoverSkills(context.cwd, roots)
        const skill = skills.find((s) => s.name === params.name)
        if (skill === undefined) {
          return yield* new Tool.ToolError({
            message: `no skill named ${params.name}` + (skills.length === 0 ? " (no skills are installed)" : `; available: ${skills.map((s) => s.name).join(", ")}`)
          })
        }
        const md = yield* readSkillMd(skill.dir)
        const files = yield* listFiles(skill.dir)
        return [
          `# Skill ${skill.name}`,
          `Folder: ${skill.dir}`,
          "",
          (md?.body ?? "").trim(),
          "",
          "Files:",
          ...files.map((f) => `- ${f}`)
        ].join("\n")
      })
  })
