import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { Confinement, OptIn } from "../src/index.ts"

const home = (config?: string) => {
  const dir = mkdtempSync(join(tmpdir(), "dsh-resident-home-"))
  if (config !== undefined) writeFileSync(join(dir, "config.toml"), config)
  return dir
}

describe("residentSetting", () => {
  it("is off by default, with no config or a config that does not mention it", async () => {
    expect(await OptIn.residentSetting({ DSH_HOME: home() })).toMatchObject({ on: false, source: "default" })
    expect(await OptIn.residentSetting({ DSH_HOME: home("[sandbox]\nmode = \"off\"\n") })).toMatchObject({ on: false })
  })

  it("DSH_RESIDENT: 0 is off whatever the config says, 1 is on, another value names a resident", async () => {
    const on = home("[cli]\nresident = true\n")
    expect(await OptIn.residentSetting({ DSH_HOME: on, DSH_RESIDENT: "0" })).toMatchObject({ on: false, source: "env" })
    expect(await OptIn.residentSetting({ DSH_RESIDENT: "1" })).toMatchObject({ on: true, name: "", source: "env" })
    expect(await OptIn.residentSetting({ DSH_RESIDENT: "ci" })).toMatchObject({ on: true, name: "ci", source: "env" })
  })

  it("[cli] resident = true is on; a malformed config or another value is off", async () => {
    expect(await OptIn.residentSetting({ DSH_HOME: home("[cli]\nresident = true\n") })).toMatchObject({ on: true, source: "config" })
    expect(await OptIn.residentSetting({ DSH_HOME: home("[cli]\nresident = \"yes\"\n") })).toMatchObject({ on: false })
    expect(await OptIn.residentSetting({ DSH_HOME: home("[cli\nresident = true\n") })).toMatchObject({ on: false })
  })
})

describe("confinement", () => {
  it("equals itself; differs in exactly the kinds changed; a missing one differs in all", () => {
    const mine = Confinement.confinement()
    expect(Confinement.confinementDiffers(mine, Confinement.confinement())).toEqual([])
    expect(Confinement.confinementDiffers(mine, { ...mine, nice: "7", cgroup: "0::/other" })).toEqual(["nice", "cgroup"])
    expect(Confinement.confinementDiffers(undefined, mine)).toHaveLength(7)
  })

  it.skipIf(process.platform !== "linux")("reads every rlimit row and the privilege fields on Linux", () => {
    const { limits, privileges } = Confinement.confinement()
    expect(limits).toContain("Max open files")
    expect(limits.split("\n").length).toBeGreaterThan(15)
    expect(privileges).toMatch(/^NoNewPrivs:/m)
    expect(privileges).toMatch(/^Seccomp:/m)
  })
})
