import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { StoreChoice } from "../src/index.ts"

const base = { cwd: "/work/project", home: "/home/u/.dsh" }

describe("chooseStoreSpec", () => {
  it("takes the flag, then the environment, then the config, then the home; relative directories from the working directory or the home", () => {
    const pick = (s: Parameters<typeof StoreChoice.chooseStoreSpec>[0]) => Result.getOrThrow(StoreChoice.chooseStoreSpec(s))
    expect(pick({ ...base, flag: "store", env: "postgres://db/x", configured: "cfg" })).toEqual({ source: "--store", spec: { _tag: "File", home: "/work/project/store" } })
    expect(pick({ ...base, env: "postgres://u@db/x", configured: "cfg" })).toEqual({ source: "DSH_STORE", spec: { _tag: "Postgres", url: "postgres://u@db/x" } })
    expect(pick({ ...base, env: "", configured: "cfg" })).toEqual({ source: "store (config.toml)", spec: { _tag: "File", home: "/home/u/.dsh/cfg" } })
    expect(pick(base)).toEqual({ source: "default", spec: { _tag: "File", home: "/home/u/.dsh" } })
  })

  it("names where a bad setting came from", () => {
    const chosen = StoreChoice.chooseStoreSpec({ ...base, env: "mysql://db/x" })
    expect(Result.isFailure(chosen) && chosen.failure.startsWith("DSH_STORE ")).toBe(true)
  })
})
