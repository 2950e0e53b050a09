/**
 * @dsh/cli-resident — an opt-in resident process that serves a CLI's starts from warm spare
 * processes, only to callers confined exactly as the spare is. Plain Node: the launcher side
 * runs before the CLI loads anything heavy.
 */
export { type Confinement, confinement, confinementDiffers } from "./Confinement.ts"
export { type ResidentEntries, runInResident } from "./Launcher.ts"
export { dshHomeOf, type ResidentSetting, residentSetting } from "./OptIn.ts"
export { nodeEnvironment, ownDirectory, type Place, placeFor, residentDir, residentKey } from "./Place.ts"
export { MAX_LINE_BYTES, onLines, type ResidentStatus, send, type Start } from "./Protocol.ts"
export { serveResident } from "./Server.ts"
export { RESIDENT_LOST, runSpare, type SpareOptions } from "./Spare.ts"
export { residentSettled, residentsIn, residentStatus, stopResidents } from "./Status.ts"
