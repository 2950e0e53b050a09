/**
 * @dsh/cli-resident — an opt-in resident process that serves a CLI's starts from warm spare
 * processes, only to callers confined exactly as the spare is. Plain Node: the launcher side
 * runs before the CLI loads anything heavy.
 */
export * as Confinement from "./Confinement.ts"
export * as Launcher from "./Launcher.ts"
export * as Lost from "./Lost.ts"
export * as OptIn from "./OptIn.ts"
export * as Place from "./Place.ts"
export * as Protocol from "./Protocol.ts"
export * as Server from "./Server.ts"
export * as Spare from "./Spare.ts"
export * as Status from "./Status.ts"
