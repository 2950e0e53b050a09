import { tmpdir } from "node:os"
import { describe, expect, it } from "vitest"
import { childHomeOf } from "../src/internal/ChildConfig.ts"

describe("the child's own DSH_HOME", () => {
  it("is the child's store directory on disk, and a stable directory of this machine for a database store", () => {
    expect(childHomeOf("/home/ana/.dsh/sessions/s1/agents/sdk-dsh-1")).toBe("/home/ana/.dsh/sessions/s1/agents/sdk-dsh-1")
    const inPg = childHomeOf("postgres://dsh@db:5432/dsh#s1/sdk-dsh-1")
    expect(inPg.startsWith(`${tmpdir()}/dsh-sdk-children/`)).toBe(true)
    expect(childHomeOf("postgres://dsh@db:5432/dsh#s1/sdk-dsh-1"), "the same child finds the same directory again (cold continuation)").toBe(inPg)
    expect(childHomeOf("postgres://dsh@db:5432/dsh#s1/sdk-dsh-2")).not.toBe(inPg)
  })
})
