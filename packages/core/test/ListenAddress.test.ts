import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { ListenAddress } from "../src/index.ts"

describe("ListenAddress.parse", () => {
  it("reads HOST:PORT, [IPv6]:PORT and :PORT (host 127.0.0.1)", () => {
    expect(ListenAddress.parse("0.0.0.0:8080")).toEqual(Result.succeed({ host: "0.0.0.0", port: 8080 }))
    expect(ListenAddress.parse("[::1]:4100")).toEqual(Result.succeed({ host: "::1", port: 4100 }))
    expect(ListenAddress.parse(":0")).toEqual(Result.succeed({ host: "127.0.0.1", port: 0 }))
  })

  it("takes HOST alone as a free port, unless a port is required", () => {
    expect(ListenAddress.parse("localhost")).toEqual(Result.succeed({ host: "localhost", port: 0 }))
    expect(ListenAddress.parse("localhost", { portRequired: true })).toEqual(Result.fail("--listen must be HOST:PORT with a port from 0 to 65535 (got \"localhost\")"))
  })

  it("refuses a port out of range or not a number", () => {
    expect(Result.isFailure(ListenAddress.parse("127.0.0.1:70000"))).toBe(true)
    expect(Result.isFailure(ListenAddress.parse("127.0.0.1:http"))).toBe(true)
    expect(Result.isFailure(ListenAddress.parse("127.0.0.1:1.5"))).toBe(true)
  })
})
