import { Confinement, OptIn } from "@dsh/cli-resident"

// Off unless the user opted in: DSH_RESIDENT=1 (or a name), or `[cli] resident = true` in config.toml.
console.log((await OptIn.residentSetting({ DSH_HOME: "/nonexistent" })).reason.split(" (")[0])
console.log((await OptIn.residentSetting({ DSH_RESIDENT: "1" })).reason)
console.log((await OptIn.residentSetting({ DSH_RESIDENT: "0" })).reason)

// A spare serves a start only when the caller is confined exactly as the spare is.
const mine = Confinement.confinement()
console.log("the same process:", Confinement.confinementDiffers(mine, Confinement.confinement()))
console.log("a reniced caller:", Confinement.confinementDiffers({ ...mine, nice: String(Number(mine.nice) + 7) }, mine))
