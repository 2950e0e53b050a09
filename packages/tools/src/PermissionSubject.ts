import { realpath } from "node:fs/promises"
import { dirname, isAbsolute, relative, resolve, sep } from "node:path"
import { Effect } from "effect"
import { commandParts } from "./internal/commandParts.ts"

/**
 * What a tool does, as the permission modes see it: `read` (changes nothing), `edit` (writes a
 * file), `execute` (runs a command), `other` (changes something else).
 */
export type ToolKind = "read" | "edit" | "execute" | "other"

/**
 * One tool call as permission rules see it: `Bash(git push)`, `Edit(src/a.ts)`, `Read`.
 * `forms` are every reading a rule must consider: a `deny` or `ask` rule applies when it
 * covers any of them, an `allow` rule only when allow rules cover all of them (each simple
 * command of `git status && rm -rf x`; a path and the real path behind its symlinks).
 */
export interface PermissionSubject {
  readonly tool: string
  /** Other tool names rules may use for this call (an ACP `edit` is `Edit` and `Write` alike). */
  readonly aliases?: ReadonlyArray<string> | undefined
  readonly kind: ToolKind
  /** The command, or the path relative to the working directory (absolute when outside it). */
  readonly specifier?: string | undefined
  /** How patterns match the specifier: gitignore-like paths, or text with `*` wildcards. */
  readonly match?: "path" | "text" | undefined
  readonly forms?: ReadonlyArray<string> | undefined
  /** For paths: whether the file is inside the working directory (symlinks resolved). */
  readonly insideCwd?: boolean | undefined
}

/** The subject as a rule would be written: `Bash(git push)`, `Read`. */
export const subjectText = (subject: PermissionSubject): string =>
  subject.specifier === undefined ? subject.tool : `${subject.tool}(${subject.specifier})`

/** Every form rules must consider (the specifier itself when there are no others). */
export const subjectForms = (subject: PermissionSubject): ReadonlyArray<string> =>
  subject.specifier === undefined ? [] : subject.forms !== undefined && subject.forms.length > 0 ? subject.forms : [subject.specifier]

/** A tool call without a specifier. */
export const toolSubject = (tool: string, kind: ToolKind): PermissionSubject => ({ tool, kind })

/** A command (Bash): the whole line and each of its simple commands. */
export const commandSubject = (tool: string, command: string, kind: ToolKind = "execute"): PermissionSubject => {
  const line = command.replace(/\s+/g, " ").trim()
  const parts = commandParts(command)
  return { tool, kind, specifier: line, match: "text", forms: [...new Set([line, ...parts])].filter((f) => f !== "") }
}

const within = (root: string, path: string): boolean => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep)

/**
 * Realpath of the longest existing prefix, with the not-yet-existing rest appended: where a path
 * that may not exist yet really points (symlinks resolved), for path rules and path policies.
 */
export const realpathOfExisting = async (absolute: string): Promise<string> => {
  const rest: Array<string> = []
  let existing = absolute
  for (;;) {
    try {
      const real = await realpath(existing)
      return rest.length === 0 ? real : resolve(real, ...rest.reverse())
    } catch {
      const parent = dirname(existing)
      if (parent === existing) return absolute
      rest.push(relative(parent, existing))
      existing = parent
    }
  }
}

const shown = (cwd: string, absolute: string): string => {
  const rel = relative(cwd, absolute)
  return rel === "" ? "." : rel.startsWith("..") || isAbsolute(rel) ? absolute : rel
}

/**
 * A file a tool touches: relative to the working directory when inside it (absolute when
 * not), plus the real path behind any symlink as a second form; `insideCwd` is judged on the
 * real path, so a link cannot make an outside file look inside.
 */
export const pathSubject = (tool: string, path: string, cwd: string, kind: ToolKind): Effect.Effect<PermissionSubject> =>
  Effect.promise(async () => {
    const absolute = resolve(cwd, path)
    const [real, realCwd] = await Promise.all([realpathOfExisting(absolute), realpathOfExisting(resolve(cwd))])
    const specifier = shown(resolve(cwd), absolute)
    const realForm = shown(realCwd, real)
    return { tool, kind, specifier, match: "path", forms: [...new Set([specifier, realForm])], insideCwd: within(realCwd, real) }
  })
