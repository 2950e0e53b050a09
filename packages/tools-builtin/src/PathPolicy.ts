import { isAbsolute, relative, resolve, sep } from "node:path"
import { PermissionSubject, Tool } from "@dsh/tools"
import { Context, Effect } from "effect"

/**
 * Where the file tools (Read, Write, Edit, Glob, Grep) may reach. The default confines them to
 * the calling agent's working directory (`ToolContext.cwd`); a harness widens that per context
 * with `Effect.provideService(PathPolicy, confinedPaths([...]))` or lifts it with
 * `unconfinedPaths`. Bash is not confined by this: a shell can reach anything.
 */
export interface PathPolicyShape {
  /** No confinement at all. */
  readonly unconfined?: boolean | undefined
  /** Directories allowed besides the working directory (relative ones resolve against it). */
  readonly extraRoots?: ReadonlyArray<string> | undefined
}

export const PathPolicy = Context.Reference<PathPolicyShape>("@dsh/tools-builtin/PathPolicy", {
  defaultValue: () => ({})
})

/** Confined to the working directory plus `extraRoots`. */
export const confinedPaths = (extraRoots: ReadonlyArray<string> = []): PathPolicyShape => ({ extraRoots })

/** No confinement: for harnesses that sandbox the whole process some other way. */
export const unconfinedPaths: PathPolicyShape = { unconfined: true }

/** A path a tool may use: `path` as the model should see it, `real` to operate on. */
export interface ResolvedPath {
  readonly display: string
  readonly absolute: string
  /** The absolute path with every existing symlink resolved (writes go through links). */
  readonly real: string
}

const within = (root: string, path: string): boolean => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep)

/** How a path is shown to the model: relative to the working directory when inside it. */
export const displayPath = (cwd: string, absolute: string): string => {
  const rel = relative(cwd, absolute)
  return rel === "" ? "." : rel.startsWith("..") || isAbsolute(rel) ? absolute : rel
}

/** A place named in a sentence: "the working directory" rather than ".". */
export const placeName = (display: string): string => display === "." ? "the working directory" : display

/**
 * Resolves a model-supplied path against the working directory and checks it against the
 * policy. `..` is resolved first and symlinks are followed (realpath of the existing part), so
 * neither can lead outside the allowed roots.
 */
export const resolvePath = (cwd: string, input: string): Effect.Effect<ResolvedPath, Tool.ToolError> =>
  Effect.gen(function*() {
    const policy = yield* PathPolicy
    const absolute = resolve(cwd, input)
    const real = yield* Effect.promise(() => PermissionSubject.realpathOfExisting(absolute))
    const resolved = { display: displayPath(cwd, absolute), absolute, real }
    if (policy.unconfined === true) return resolved
    const roots = yield* Effect.promise(() =>
      Promise.all([cwd, ...(policy.extraRoots ?? []).map((r) => resolve(cwd, r))].map(PermissionSubject.realpathOfExisting))
    )
    if (roots.some((root) => within(root, real))) return resolved
    const where = real !== absolute
      ? `${input} leads through a symlink to ${real}, which is`
      : input === absolute
      ? `${input} is`
      : `${input} resolves to ${absolute}, which is`
    return yield* Tool.toolFail(
      `${where} outside the allowed directories (${roots.join(", ")}). Use a path inside them.`
    )
  })
