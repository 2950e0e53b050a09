/**
 * @dsh/subprocess: the only package that spawns processes. `ProcessLauncher` is the seam
 * (a local process by default; ssh, containers or Jobs later); `LocalProcessLauncher` runs
 * children with execa in their own process group, with a scrubbed environment, a bounded
 * stderr tail and a SIGTERM → grace → SIGKILL dispose ladder for the whole tree. `LineFramer`
 * is the LF-only line splitter the stdio protocols on top of it share.
 */
export * as Environment from "./Environment.ts"
export * as FromSpawn from "./FromSpawn.ts"
export * as KillTree from "./KillTree.ts"
export * as LineFramer from "./LineFramer.ts"
export * as LocalProcessLauncher from "./LocalProcessLauncher.ts"
export * as ProcessLauncher from "./ProcessLauncher.ts"
export * as Sandbox from "./Sandbox.ts"
export * as SubprocessError from "./SubprocessError.ts"
export * as WebStdio from "./WebStdio.ts"
