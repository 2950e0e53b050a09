import { describe, expect, it } from "vitest"
import { makeHome, runDsh } from "./support.ts"

describe("dsh demo (what npm start runs)", () => {
  it("tours this repository on the embedded model, fanning out to explore children, and prints the result", async () => {
    const home = makeHome()
    const r = await runDsh(["demo"], { env: { DSH_HOME: home } })
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/This repository has \d+ packages under packages\//)
    for (const pkg of ["core", "llm", "agent"]) expect(r.stdout).toMatch(new RegExp(`@dsh/${pkg}: \\S`))
    expect(r.stdout.match(/⇠ explore-\d completed/g)).toHaveLength(3)
    const list = await runDsh(["sessions", "list", "--json"], { env: { DSH_HOME: home } })
    expect(JSON.parse(list.stdout).sessions).toMatchObject([{ status: "completed", agent: "agent" }])
  })
})
