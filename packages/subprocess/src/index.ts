/**
 * @dsh/subprocess: the only package that spawns processes. `ProcessLauncher` is the seam
 * (a local process by default; ssh, containers or Jobs later); `LocalProcessLauncher` runs
 * children with execa in their own process group, with a scrubbed environment, a bounded
 * stderr tail and a SIGTERM → grace → SIGKILL dispose ladder for the whole tree. `LineFramer`
 * is the LF-only line splitter the stdio protocols on top of it share.
 */
export * from "./Environment.ts"
export * from "./FromSpawn.ts"
export * from "./KillTree.ts"
export * from "./LineFramer.ts"
export * from "./LocalProcessLauncher.ts"
export * from "./ProcessLauncher.ts"
export * from "./Sandbox.ts"
export * from "./SubprocessError.ts"
export * from "./WebStdio.ts"
